import { Badge, Button, Card, Loader, Table, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, listOf, withQuery } from '../../api/client.ts';
import { DataTable } from '../../components/DataTable.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { Pager } from '../../components/Pager.tsx';
import { dateTime } from '../../components/format.ts';
import type { Campaign } from '../campaigns/list.tsx';

// Loyalty programs (GET /v1/loyalties), each opening its earning rules, rewards, tiers and members.

const LIMIT = 20;

export function LoyaltyProgramsPage() {
  const [page, setPage] = useState(1);
  const list = useQuery({
    queryKey: ['loyalties', page],
    queryFn: async () => listOf<Campaign>(await api('GET', withQuery('/v1/loyalties', { limit: LIMIT, page })), 'campaigns'),
  });
  return (
    <>
      <PageHeader
        title="Loyalty"
        description="Programs, what earns points, what points buy, tiers and members."
        actions={
          <Button component={Link} to="/campaigns/new/loyalty">
            New loyalty program
          </Button>
        }
      />
      <Card withBorder>
        {list.isPending && <Loader aria-label="Loading programs" />}
        <ErrorAlert error={list.error} />
        {list.data && (
          <>
            <DataTable columns={['Program', 'Status', 'Cards', 'Created']} minWidth={520} highlightOnHover>
              {list.data.items.map((c) => (
                <Table.Tr key={c.id}>
                  <Table.Td>
                    <Link to={`/loyalty/${c.id}`}>{c.name}</Link>
                  </Table.Td>
                  <Table.Td>
                    <Badge color={c.active ? 'green' : 'gray'} variant="light">
                      {c.active ? 'active' : 'disabled'}
                    </Badge>
                  </Table.Td>
                  <Table.Td>{c.vouchers_count}</Table.Td>
                  <Table.Td>{dateTime(c.created_at)}</Table.Td>
                </Table.Tr>
              ))}
            </DataTable>
            {list.data.items.length === 0 && <Text c="dimmed">No loyalty program yet.</Text>}
            <Pager page={page} limit={LIMIT} count={list.data.items.length} total={list.data.total} onPage={setPage} />
          </>
        )}
      </Card>
    </>
  );
}
