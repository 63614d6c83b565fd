import { Anchor, Button, Card, Group, NumberInput, Progress, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { modals } from '@mantine/modals';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, listOf, withQuery } from '../../api/client.ts';
import { useCan } from '../../app/session.tsx';
import { messageOf } from '../../api/field-errors.ts';
import { CustomerLink } from '../../components/CustomerLink.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { Pager } from '../../components/Pager.tsx';
import { notifyDone, notifyFailed } from '../../components/notify.ts';
import type { Campaign } from './list.tsx';

// A code campaign's codes: generation with progress, the list of codes with their holders, and publishing
// a code nobody holds yet to a customer (each action shown only to a role that may take it).

interface Voucher {
  id: string;
  code: string;
  active: boolean;
  holder_id?: string | null;
  redemption?: { quantity: number | null; redeemed_quantity: number };
  publish?: { count: number };
  created_at: string;
}

interface AsyncAction {
  id: string;
  status: string;
  progress: number;
  result?: { message?: string };
}

const LIMIT = 20;

/** The Codes card of a campaign page; errors of its actions go to the page's own error alert. */
export function CodesCard({ campaign: c, onError }: { campaign: Campaign; onError: (error: unknown) => void }) {
  const client = useQueryClient();
  const can = useCan();
  const [page, setPage] = useState(1);
  const [count, setCount] = useState<number | string>(10);
  const [generation, setGeneration] = useState<AsyncAction | null>(null);
  const vouchers = useQuery({
    queryKey: ['campaign-vouchers', c.id, page],
    queryFn: async () => listOf<Voucher>(await api('GET', withQuery('/v1/vouchers', { campaign_id: c.id, limit: LIMIT, page })), 'vouchers'),
  });

  const refresh = () => client.invalidateQueries({ predicate: (q) => ['campaign', 'campaign-vouchers', 'campaigns', 'report'].includes(String(q.queryKey[0])) });

  const generate = async () => {
    onError(null);
    setGeneration({ id: '', status: 'IN_PROGRESS', progress: 0 });
    try {
      const answer = await api<{ async_action_id?: string; code?: string }>('POST', withQuery(`/v1/campaigns/${c.id}/vouchers`, { vouchers_count: count }), {});
      let action: AsyncAction = { id: answer.async_action_id ?? '', status: answer.async_action_id ? 'IN_PROGRESS' : 'DONE', progress: answer.async_action_id ? 0 : 100 };
      setGeneration(action);
      while (action.status !== 'DONE' && action.status !== 'FAILED') {
        await new Promise((r) => setTimeout(r, 1000));
        action = await api<AsyncAction>('GET', `/v1/async-actions/${action.id}`);
        setGeneration(action);
      }
      if (action.status === 'FAILED') throw new Error(action.result?.message ?? 'Code generation failed');
      notifyDone(`${count} code(s) generated`);
      await refresh();
    } catch (error) {
      onError(error);
      setGeneration(null);
    }
  };

  const publish = (voucher: Voucher) => {
    let customer = '';
    modals.openConfirmModal({
      title: `Publish ${voucher.code}`,
      children: <TextInput label="Customer (id or source_id)" data-autofocus onChange={(e) => (customer = e.currentTarget.value)} />,
      labels: { confirm: 'Publish', cancel: 'Cancel' },
      onConfirm: () =>
        void (async () => {
          try {
            await api('POST', '/v1/publications', { customer: customer.startsWith('cust_') ? { id: customer } : { source_id: customer }, voucher: voucher.code });
            notifyDone(`${voucher.code} published to ${customer}`);
            await refresh();
          } catch (error) {
            notifyFailed(`${voucher.code} was not published`, error);
          }
        })(),
    });
  };

  return (
    <Card withBorder>
      <Group justify="space-between" mb="sm" wrap="wrap">
        <Title order={2} size="h5">
          Codes
        </Title>
        {can('POST', '/v1/campaigns/:campaignId/vouchers') && (
          <Group gap="xs" align="flex-end">
            <NumberInput aria-label="Codes to generate" value={count} onChange={setCount} min={1} max={100000} w={120} size="xs" />
            <Button size="xs" onClick={() => void generate()} loading={generation !== null && generation.status !== 'DONE'}>
              Generate codes
            </Button>
          </Group>
        )}
      </Group>
      {generation && (
        <Stack gap={4} mb="sm">
          <Progress value={generation.progress} animated={generation.status !== 'DONE'} aria-label="Code generation progress" />
          <Text size="xs" c="dimmed">
            {generation.status === 'DONE' ? 'Done' : `Generating… ${generation.progress}%`}
          </Text>
        </Stack>
      )}
      <ErrorAlert error={vouchers.error} />
      {vouchers.data && (
        <>
          <DataTable columns={can('POST', '/v1/publications') ? ['Code', 'Status', 'Redeemed', 'Holder', ''] : ['Code', 'Status', 'Redeemed', 'Holder']} minWidth={520}>
            {vouchers.data.items.map((v) => (
              <Table.Tr key={v.id}>
                <Table.Td>
                  <Anchor component={Link} to={`/vouchers/${encodeURIComponent(v.code)}`}>
                    <code>{v.code}</code>
                  </Anchor>
                </Table.Td>
                <Table.Td>{v.active ? 'active' : 'disabled'}</Table.Td>
                <Table.Td>{v.redemption?.redeemed_quantity ?? 0}</Table.Td>
                <Table.Td>{v.holder_id ? <CustomerLink id={v.holder_id} /> : '—'}</Table.Td>
                {can('POST', '/v1/publications') && (
                  <Table.Td>
                    {!v.holder_id && (
                      <Button size="compact-xs" variant="light" onClick={() => publish(v)} aria-label={`Publish ${v.code}`}>
                        Publish
                      </Button>
                    )}
                  </Table.Td>
                )}
              </Table.Tr>
            ))}
          </DataTable>
          <Pager page={page} limit={LIMIT} count={vouchers.data.items.length} total={vouchers.data.total} onPage={setPage} />
        </>
      )}
      {vouchers.isError && <Text c="red">{messageOf(vouchers.error)}</Text>}
    </Card>
  );
}
