import { Anchor, Badge, Card, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, withQuery } from '../../api/client.ts';
import { CustomerLink, type CustomerSummary } from '../../components/CustomerLink.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { Pager } from '../../components/Pager.tsx';
import { dateTime, money } from '../../components/format.ts';

// One code's redemption history (GET /v1/vouchers/{code}/redemption): successes, refusals and rollbacks,
// newest first, each opening its record on the redemptions page.

export interface HistoryEntry {
  id: string;
  object: 'redemption' | 'redemption_rollback';
  date: string;
  result: 'SUCCESS' | 'FAILURE';
  status: 'SUCCEEDED' | 'FAILED' | 'ROLLED_BACK';
  failure_code?: string;
  customer_id: string | null;
  customer?: CustomerSummary | null;
  amount?: number;
  order?: { amount?: number; total_applied_discount_amount?: number; total_discount_amount?: number } | null;
}

const LIMIT = 20;

/** What a record was, in words: a rollback is never shown as a redemption. */
export function entryLabel(e: HistoryEntry): { text: string; color: string } {
  if (e.object === 'redemption_rollback') return e.result === 'FAILURE' ? { text: `rollback refused: ${e.failure_code ?? 'failed'}`, color: 'red' } : { text: 'rollback', color: 'grape' };
  if (e.result === 'FAILURE') return { text: `refused: ${e.failure_code ?? 'failed'}`, color: 'red' };
  if (e.status === 'ROLLED_BACK') return { text: 'redeemed, rolled back', color: 'orange' };
  return { text: 'redeemed', color: 'green' };
}

function gave(e: HistoryEntry, type: string): string {
  if (e.result === 'FAILURE') return '—';
  if (e.amount !== undefined && e.amount !== null) return type === 'LOYALTY_CARD' ? `${e.amount} points` : `${money(e.amount)} credits`;
  // A rollback's order is the cancelled one, whose discount no longer says what was undone.
  if (e.object === 'redemption_rollback') return '—';
  const discount = e.order?.total_applied_discount_amount ?? e.order?.total_discount_amount;
  return discount === undefined ? '—' : money(discount);
}

export function VoucherHistory({ code, type }: { code: string; type: string }) {
  const [page, setPage] = useState(1);
  const history = useQuery({
    queryKey: ['voucher-redemptions', code, page],
    queryFn: () => api<{ total: number; redemption_entries: HistoryEntry[] }>('GET', withQuery(`/v1/vouchers/${encodeURIComponent(code)}/redemption`, { limit: LIMIT, page })),
  });
  return (
    <Card withBorder data-testid="voucher-history">
      <Title order={2} size="h5" mb="xs">
        Redemption history
      </Title>
      <ErrorAlert error={history.error} />
      {history.data && history.data.total === 0 && <Text size="sm" c="dimmed">Not redeemed yet.</Text>}
      {history.data && history.data.total > 0 && (
        <>
          <DataTable columns={['Date', 'What', 'Customer', 'Order', 'Gave']} minWidth={620}>
            {history.data.redemption_entries.map((e) => {
              const label = entryLabel(e);
              return (
                <Table.Tr key={e.id} data-testid={`history-row-${e.id}`}>
                  <Table.Td>
                    <Anchor component={Link} to={`/redemptions?open=${encodeURIComponent(e.id)}`} size="sm">
                      {dateTime(e.date)}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>
                    <Badge variant="light" color={label.color}>
                      {label.text}
                    </Badge>
                  </Table.Td>
                  <Table.Td>{e.customer_id ? <CustomerLink id={e.customer_id} known={e.customer} /> : '—'}</Table.Td>
                  <Table.Td>{e.order?.amount !== undefined ? money(e.order.amount) : '—'}</Table.Td>
                  <Table.Td>{gave(e, type)}</Table.Td>
                </Table.Tr>
              );
            })}
          </DataTable>
          <Pager page={page} limit={LIMIT} count={history.data.redemption_entries.length} total={history.data.total} onPage={setPage} />
        </>
      )}
    </Card>
  );
}
