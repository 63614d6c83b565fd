import { Anchor, Button, Card, Group, Stack, Table, Text, TextInput } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, listOf, withQuery } from '../../api/client.ts';
import { useCan } from '../../app/session.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { useFormSubmit } from '../../components/forms.tsx';
import { Pager } from '../../components/Pager.tsx';
import { dateTime } from '../../components/format.ts';
import { notifyDone } from '../../components/notify.ts';

// A program's members: their cards, page by page (GET /v1/loyalties/{id}/members), found by customer, and
// a customer added as a member (POST, which publishes a card to them).

interface Member {
  id: string;
  code: string;
  holder_id: string | null;
  active: boolean;
  created_at: string;
  loyalty_card: { points: number; balance: number } | null;
}

const LIMIT = 20;

export function MembersTab({ campaignId }: { campaignId: string }) {
  const client = useQueryClient();
  const can = useCan();
  const [page, setPage] = useState(1);
  const [customer, setCustomer] = useState('');
  const [filter, setFilter] = useState('');
  const [adding, setAdding] = useState('');
  const { busy, error, submit } = useFormSubmit({});
  const members = useQuery({
    queryKey: ['loyalty-members', campaignId, page, filter],
    queryFn: async () => listOf<Member>(await api('GET', withQuery(`/v1/loyalties/${campaignId}/members`, { limit: LIMIT, page, customer: filter }))),
  });

  const add = submit(async () => {
    const card = await api<Member>('POST', `/v1/loyalties/${campaignId}/members`, { customer: adding.startsWith('cust_') ? { id: adding } : { source_id: adding } });
    notifyDone(`${adding} joined with card ${card.code}`);
    setAdding('');
    await client.invalidateQueries({ queryKey: ['loyalty-members', campaignId] });
  });

  return (
    <Stack>
      {can('POST', '/v1/loyalties/:campaignId/members') && (
      <Card withBorder component="form" onSubmit={(e: React.FormEvent) => void add(e)}>
        <Group align="flex-end" wrap="wrap">
          <TextInput label="Add a member" description="Customer id or source_id (a new source_id creates the customer)" value={adding} onChange={(e) => setAdding(e.currentTarget.value)} required w={320} />
          <Button type="submit" loading={busy}>
            Add member
          </Button>
        </Group>
        <ErrorAlert error={error} title="The member was not added" />
      </Card>
      )}
      <Card withBorder>
        <Group mb="sm" align="flex-end" wrap="wrap">
          <TextInput
            label="Find by customer"
            description="Customer id or source_id; Enter to search"
            value={customer}
            onChange={(e) => setCustomer(e.currentTarget.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') {
                setFilter(customer.trim());
                setPage(1);
              }
            }}
            w={300}
          />
        </Group>
        <ErrorAlert error={members.error} />
        {members.data && (
          <>
            <DataTable columns={['Card', 'Member', 'Balance', 'Earned', 'Joined']} minWidth={560}>
              {members.data.items.map((m) => (
                <Table.Tr key={m.id} data-testid={`member-${m.code}`}>
                  <Table.Td>
                    <Anchor component={Link} to={`/vouchers/${encodeURIComponent(m.code)}`}>
                      <code>{m.code}</code>
                    </Anchor>
                  </Table.Td>
                  <Table.Td>{m.holder_id ? <Anchor component={Link} to={`/customers/${m.holder_id}`}>{m.holder_id}</Anchor> : '—'}</Table.Td>
                  <Table.Td data-testid="member-balance">{m.loyalty_card?.balance ?? 0}</Table.Td>
                  <Table.Td>{m.loyalty_card?.points ?? 0}</Table.Td>
                  <Table.Td>{dateTime(m.created_at)}</Table.Td>
                </Table.Tr>
              ))}
            </DataTable>
            {members.data.items.length === 0 && <Text c="dimmed">{filter ? 'No card held by this customer.' : 'No members yet.'}</Text>}
            <Pager page={page} limit={LIMIT} count={members.data.items.length} total={members.data.total} onPage={setPage} />
          </>
        )}
      </Card>
    </Stack>
  );
}
