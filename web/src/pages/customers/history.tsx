import { Badge, Button, Card, Collapse, Group, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, listOf, withQuery } from '../../api/client.ts';
import { DataTable } from '../../components/DataTable.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { Json } from '../../components/Json.tsx';
import { dateTime, money } from '../../components/format.ts';
import { valueOf, type Voucher } from '../vouchers/list.tsx';

// What happened with her: vouchers she holds, her redemptions (a rollback says so; a promotion is named,
// not numbered) and her activity, each entry opening to its details.

export function VouchersHeldCard({ vouchers }: { vouchers: Voucher[] }) {
  return (
    <Card withBorder>
      <Title order={2} size="h5" mb="xs">
        Vouchers held
      </Title>
      {vouchers.length === 0 ? (
        <Text size="sm" c="dimmed">
          None.
        </Text>
      ) : (
        <DataTable columns={['Code', 'Campaign', 'Value', 'Expires']} minWidth={480}>
          {vouchers.map((v) => (
            <Table.Tr key={v.id}>
              <Table.Td>
                <Link to={`/vouchers/${encodeURIComponent(v.code)}`}>
                  <code>{v.code}</code>
                </Link>
              </Table.Td>
              <Table.Td>{v.campaign ?? '—'}</Table.Td>
              <Table.Td>{valueOf(v)}</Table.Td>
              <Table.Td>{v.expiration_date ? dateTime(v.expiration_date) : 'never'}</Table.Td>
            </Table.Tr>
          ))}
        </DataTable>
      )}
    </Card>
  );
}

interface Redemption {
  id: string;
  object: 'redemption' | 'redemption_rollback';
  date: string;
  result: 'SUCCESS' | 'FAILURE';
  status: 'SUCCEEDED' | 'FAILED' | 'ROLLED_BACK';
  redemption: string | null;
  amount?: number;
  failure_message?: string;
  reason?: string;
  voucher?: { code: string } | null;
  promotion_tier?: { id: string; name?: string; campaign?: { name?: string } } | null;
  order?: { amount?: number; total_amount?: number } | null;
}

/** What a record is, in words: a rollback is never shown as just another redemption. */
function kindOf(r: Redemption): { label: string; color: string } {
  if (r.object === 'redemption_rollback') return r.result === 'FAILURE' ? { label: 'rollback failed', color: 'red' } : { label: 'rollback', color: 'grape' };
  if (r.result === 'FAILURE') return { label: 'failed', color: 'red' };
  if (r.status === 'ROLLED_BACK') return { label: 'rolled back', color: 'gray' };
  return { label: 'redeemed', color: 'green' };
}

function whatOf(r: Redemption): React.ReactNode {
  if (r.voucher?.code) return <code>{r.voucher.code}</code>;
  if (r.promotion_tier) return r.promotion_tier.name ?? r.promotion_tier.campaign?.name ?? 'a promotion';
  return '—';
}

export function RedemptionsCard({ customerId }: { customerId: string }) {
  const redemptions = useQuery({
    queryKey: ['customer-redemptions', customerId],
    queryFn: async () => listOf<Redemption>(await api('GET', withQuery('/v1/redemptions', { customer: customerId, limit: 10 })), 'redemptions'),
  });
  const rows = redemptions.data?.items ?? [];
  return (
    <Card withBorder>
      <Title order={2} size="h5" mb="xs">
        Redemptions
      </Title>
      <ErrorAlert error={redemptions.error} />
      {redemptions.data && rows.length === 0 && (
        <Text size="sm" c="dimmed">
          None.
        </Text>
      )}
      {rows.length > 0 && (
        <DataTable columns={['When', 'What', 'Result', 'Order']} minWidth={480}>
          {rows.map((r) => {
            const kind = kindOf(r);
            return (
              <Table.Tr key={r.id}>
                <Table.Td>
                  <Link to={`/redemptions?open=${r.id}`}>{dateTime(r.date)}</Link>
                </Table.Td>
                <Table.Td>{whatOf(r)}</Table.Td>
                <Table.Td>
                  <Badge variant="light" color={kind.color}>
                    {kind.label}
                  </Badge>
                  {r.failure_message && (
                    <Text size="xs" c="dimmed">
                      {r.failure_message}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td>{r.order ? money(r.order.total_amount ?? r.order.amount) : '—'}</Table.Td>
              </Table.Tr>
            );
          })}
        </DataTable>
      )}
      {rows.length > 0 && (
        <Button component={Link} to={`/redemptions?customer=${customerId}`} variant="subtle" size="xs" mt="xs">
          All of them
        </Button>
      )}
    </Card>
  );
}

interface Activity {
  id: string;
  type: string;
  created_at: string;
  data?: Record<string, unknown>;
}

function ActivityLine({ activity }: { activity: Activity }) {
  const [open, setOpen] = useState(false);
  return (
    <Stack gap={2}>
      <Group justify="space-between" gap="xs" wrap="nowrap" align="flex-start">
        <Stack gap={0} style={{ minWidth: 0 }}>
          <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
            {activity.type.replace(/^customer\./, '').replaceAll('.', ' ').replaceAll('_', ' ')}
          </Text>
          <Text size="xs" c="dimmed">
            {dateTime(activity.created_at)}
          </Text>
        </Stack>
        <Button variant="subtle" size="compact-xs" style={{ flex: 'none' }} onClick={() => setOpen(!open)} aria-expanded={open} aria-label={`Details of ${activity.type} at ${dateTime(activity.created_at)}`}>
          {open ? 'Hide' : 'Details'}
        </Button>
      </Group>
      <Collapse expanded={open}>{open && <Json value={activity.data ?? {}} label={`Details of ${activity.type}`} />}</Collapse>
    </Stack>
  );
}

export function ActivitiesCard({ customerId }: { customerId: string }) {
  const activity = useQuery({
    queryKey: ['customer-activity', customerId],
    queryFn: async () => listOf<Activity>(await api('GET', withQuery(`/v1/customers/${customerId}/activities`, { limit: 20 }))),
  });
  return (
    <Card withBorder>
      <Title order={2} size="h5" mb="xs">
        Activity
      </Title>
      <ErrorAlert error={activity.error} />
      {activity.data?.items.length === 0 && (
        <Text size="sm" c="dimmed">
          Nothing yet.
        </Text>
      )}
      <Stack gap={6}>
        {(activity.data?.items ?? []).map((a) => (
          <ActivityLine key={a.id} activity={a} />
        ))}
      </Stack>
    </Card>
  );
}
