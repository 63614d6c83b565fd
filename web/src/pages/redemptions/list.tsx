import { Badge, Button, Card, Drawer, Group, Loader, Select, Stack, Table, Text, TextInput, Textarea, Title } from '@mantine/core';
import { modals } from '@mantine/modals';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { api, listOf, withQuery } from '../../api/client.ts';
import { useCan } from '../../app/session.tsx';
import { CustomerLink } from '../../components/CustomerLink.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { Json } from '../../components/Json.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { Pager } from '../../components/Pager.tsx';
import { dateTime, money } from '../../components/format.ts';
import { notifyDone } from '../../components/notify.ts';

// Redemptions with the API's filters (result, campaign, customer), a record's detail with its order and
// what it gave, and rollback after a confirmation.

interface Redemption {
  id: string;
  object: 'redemption' | 'redemption_rollback';
  date: string;
  result: 'SUCCESS' | 'FAILURE';
  status: string;
  failure_code?: string;
  failure_message?: string;
  customer_id: string | null;
  tracking_id: string | null;
  amount?: number;
  redemption: string | null;
  voucher?: { code: string; campaign?: string } | null;
  promotion_tier?: { id: string; name?: string } | null;
  order?: { id?: string; amount?: number; total_discount_amount?: number; total_applied_discount_amount?: number; total_amount?: number; items?: unknown[]; status?: string } | null;
  channel?: { channel_type: string; channel_id: string | null };
  customer?: { id: string; name?: string | null; email?: string | null; source_id?: string | null } | null;
  reason?: string | null;
  gift?: { amount: number } | null;
  loyalty_card?: { points: number } | null;
}

const LIMIT = 20;

function statusColor(r: Redemption): string {
  if (r.result === 'FAILURE') return 'red';
  if (r.status === 'ROLLED_BACK') return 'orange';
  return r.object === 'redemption_rollback' ? 'grape' : 'green';
}

function RedemptionDetail({ id, onClose }: { id: string; onClose: () => void }) {
  const client = useQueryClient();
  const can = useCan();
  const [error, setError] = useState<unknown>(null);
  const record = useQuery({ queryKey: ['redemption', id], queryFn: () => api<Redemption>('GET', `/v1/redemptions/${id}`) });

  const rollback = () => {
    let reason = '';
    modals.openConfirmModal({
      title: 'Roll back this redemption?',
      children: (
        <Stack gap="xs">
          <Text size="sm">
            Restores exactly what it consumed (the code's use, gift credit or points) and cancels its order. It cannot be undone.
          </Text>
          <Textarea label="Reason" data-autofocus onChange={(e) => (reason = e.currentTarget.value)} />
        </Stack>
      ),
      labels: { confirm: 'Roll back', cancel: 'Keep it' },
      confirmProps: { color: 'red' },
      onConfirm: () =>
        void (async () => {
          setError(null);
          try {
            await api('POST', withQuery(`/v1/redemptions/${id}/rollback`, { reason }), {});
            notifyDone('Redemption rolled back');
            await client.invalidateQueries({ predicate: (q) => ['redemptions', 'redemption', 'report'].includes(String(q.queryKey[0])) });
          } catch (e) {
            setError(e);
          }
        })(),
    });
  };

  return (
    <Drawer opened onClose={onClose} position="right" size="lg" title={<Title order={2} size="h4">Redemption {id}</Title>}>
      {record.isPending && <Loader aria-label="Loading redemption" />}
      <ErrorAlert error={record.error} />
      {record.data && (
        <Stack>
          <Group>
            <Badge color={statusColor(record.data)} data-testid="redemption-status">
              {record.data.object === 'redemption_rollback' ? 'rollback' : record.data.status}
            </Badge>
            <Text size="sm">{dateTime(record.data.date)}</Text>
          </Group>
          <Table>
            <Table.Tbody>
              <Table.Tr>
                <Table.Th>Code</Table.Th>
                <Table.Td>{record.data.voucher?.code ?? record.data.promotion_tier?.name ?? '—'}</Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th>Customer</Table.Th>
                <Table.Td>{record.data.customer_id ? <CustomerLink id={record.data.customer_id} known={record.data.customer} /> : '—'}</Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th>Order</Table.Th>
                <Table.Td>
                  {record.data.order
                    ? `${money(record.data.order.amount)} − ${money(record.data.order.total_applied_discount_amount ?? record.data.order.total_discount_amount)} discount = ${money(record.data.order.total_amount)} (${record.data.order.status ?? ''})`
                    : '—'}
                </Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th>Gave</Table.Th>
                <Table.Td>
                  {record.data.gift ? `${money(record.data.gift.amount)} gift credit` : record.data.loyalty_card ? `${record.data.loyalty_card.points} points` : record.data.order ? `${money(record.data.order.total_applied_discount_amount ?? 0)} discount` : '—'}
                </Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th>By</Table.Th>
                <Table.Td>
                  {record.data.channel?.channel_type} {record.data.channel?.channel_id ?? ''}
                </Table.Td>
              </Table.Tr>
              {record.data.failure_code && (
                <Table.Tr>
                  <Table.Th>Failure</Table.Th>
                  <Table.Td>
                    {record.data.failure_code}: {record.data.failure_message}
                  </Table.Td>
                </Table.Tr>
              )}
            </Table.Tbody>
          </Table>
          <ErrorAlert error={error} title="Not rolled back" />
          {record.data.object === 'redemption' && record.data.result === 'SUCCESS' && record.data.status !== 'ROLLED_BACK' && can('POST', '/v1/redemptions/:redemptionId/rollback') && (
            <Button color="red" variant="light" onClick={rollback}>
              Roll back…
            </Button>
          )}
          <Json value={record.data} label="Redemption record" />
        </Stack>
      )}
    </Drawer>
  );
}

export function RedemptionsPage() {
  const [params, setParams] = useSearchParams();
  const page = Number(params.get('page') ?? '1');
  const result = params.get('result');
  const campaign = params.get('campaign') ?? '';
  const customer = params.get('customer') ?? '';
  const open = params.get('open');
  const [campaignInput, setCampaignInput] = useState(campaign);
  const [customerInput, setCustomerInput] = useState(customer);
  const set = (patch: Record<string, string | null>) => {
    const next = new URLSearchParams(params);
    for (const [k, v] of Object.entries(patch)) {
      if (v === null || v === '') next.delete(k);
      else next.set(k, v);
    }
    setParams(next);
  };
  const list = useQuery({
    queryKey: ['redemptions', page, result, campaign, customer],
    queryFn: async () => listOf<Redemption>(await api('GET', withQuery('/v1/redemptions', { limit: LIMIT, page, result, campaign, customer })), 'redemptions'),
  });

  return (
    <>
      <PageHeader title="Redemptions" description="Every redemption and rollback, newest first." />
      <Card withBorder>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            set({ campaign: campaignInput, customer: customerInput, page: null });
          }}
        >
          <Group mb="sm" align="flex-end" wrap="wrap">
            <Select
              label="Result"
              placeholder="Any"
              clearable
              data={['SUCCESS', 'FAILURE']}
              value={result}
              onChange={(v) => set({ result: v, page: null })}
              w={140}
            />
            <TextInput label="Campaign name" value={campaignInput} onChange={(e) => setCampaignInput(e.currentTarget.value)} w={200} />
            <TextInput label="Customer (id or source_id)" value={customerInput} onChange={(e) => setCustomerInput(e.currentTarget.value)} w={220} />
            <Button type="submit" variant="default">
              Filter
            </Button>
          </Group>
        </form>
        {list.isPending && <Loader aria-label="Loading redemptions" />}
        <ErrorAlert error={list.error} />
        {list.data && (
          <>
            <DataTable columns={['Date', 'Code', 'Customer', 'Order', 'Status']} minWidth={640} highlightOnHover>
              {list.data.items.map((r) => (
                <Table.Tr key={r.id} data-testid={`redemption-row-${r.id}`}>
                  <Table.Td>
                    <Button variant="subtle" size="compact-sm" onClick={() => set({ open: r.id })} aria-label={`Open redemption ${r.id}`}>
                      {dateTime(r.date)}
                    </Button>
                  </Table.Td>
                  <Table.Td>
                    <code>{r.voucher?.code ?? r.promotion_tier?.name ?? '—'}</code>
                  </Table.Td>
                  <Table.Td>{r.customer_id ? <CustomerLink id={r.customer_id} known={r.customer} /> : '—'}</Table.Td>
                  <Table.Td>{r.order ? money(r.order.amount) : '—'}</Table.Td>
                  <Table.Td>
                    <Badge color={statusColor(r)} variant="light">
                      {r.object === 'redemption_rollback' ? 'rollback' : r.result === 'FAILURE' ? (r.failure_code ?? 'failed') : r.status}
                    </Badge>
                  </Table.Td>
                </Table.Tr>
              ))}
            </DataTable>
            {list.data.items.length === 0 && <Text c="dimmed">No redemptions match.</Text>}
            <Pager page={page} limit={LIMIT} count={list.data.items.length} total={list.data.total} onPage={(p) => set({ page: String(p) })} />
          </>
        )}
      </Card>
      {open && <RedemptionDetail id={open} onClose={() => set({ open: null })} />}
    </>
  );
}
