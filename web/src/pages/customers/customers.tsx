import { Badge, Button, Card, Group, Loader, NumberInput, SimpleGrid, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { api, listOf, withQuery } from '../../api/client.ts';
import { useCan } from '../../app/session.tsx';
import { fieldOfError, messageOf } from '../../api/field-errors.ts';
import { DataTable } from '../../components/DataTable.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { Json } from '../../components/Json.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { Pager } from '../../components/Pager.tsx';
import { dateTime, money } from '../../components/format.ts';
import { notifyDone } from '../../components/notify.ts';
import { valueOf, type Voucher } from '../vouchers/list.tsx';

// Customers: search, and one customer's page — profile, loyalty cards and balances (points adjusted with a
// reason), vouchers held, redemptions, activity and segments — for the support agent.

interface Customer {
  id: string;
  source_id: string | null;
  name: string | null;
  email: string | null;
  phone: string | null;
  metadata: Record<string, unknown>;
  created_at: string;
  summary?: { redemptions?: { total_redeemed?: number }; orders?: { total_amount?: number; total_count?: number } };
}

const LIMIT = 20;

export function CustomersPage() {
  const navigate = useNavigate();
  const [params, setParams] = useSearchParams();
  const page = Number(params.get('page') ?? '1');
  const email = params.get('email') ?? '';
  const [open, setOpen] = useState('');
  const [emailInput, setEmailInput] = useState(email);
  const list = useQuery({
    queryKey: ['customers', page, email],
    queryFn: async () => listOf<Customer>(await api('GET', withQuery('/v1/customers', { limit: LIMIT, page, email })), 'customers'),
  });
  const set = (patch: Record<string, string>) => {
    const next = new URLSearchParams(params);
    for (const [k, v] of Object.entries(patch)) (v === '' ? next.delete(k) : next.set(k, v));
    setParams(next);
  };
  return (
    <>
      <PageHeader title="Customers" />
      <Card withBorder>
        <Group mb="sm" align="flex-end" wrap="wrap">
          <form onSubmit={(e) => { e.preventDefault(); if (open.trim()) navigate(`/customers/${encodeURIComponent(open.trim())}`); }}>
            <TextInput label="Open by id or source_id" value={open} onChange={(e) => setOpen(e.currentTarget.value)} w={240} />
          </form>
          <form onSubmit={(e) => { e.preventDefault(); set({ email: emailInput, page: '' }); }}>
            <Group align="flex-end">
              <TextInput label="E-mail (exact)" value={emailInput} onChange={(e) => setEmailInput(e.currentTarget.value)} w={240} />
              <Button type="submit" variant="default">Search</Button>
            </Group>
          </form>
        </Group>
        {list.isPending && <Loader aria-label="Loading customers" />}
        <ErrorAlert error={list.error} />
        {list.data && (
          <>
            <DataTable columns={['Name', 'Source id', 'E-mail', 'Created']} minWidth={560} highlightOnHover>
              {list.data.items.map((c) => (
                <Table.Tr key={c.id}>
                  <Table.Td><Link to={`/customers/${c.id}`}>{c.name ?? c.id}</Link></Table.Td>
                  <Table.Td>{c.source_id ?? '—'}</Table.Td>
                  <Table.Td>{c.email ?? '—'}</Table.Td>
                  <Table.Td>{dateTime(c.created_at)}</Table.Td>
                </Table.Tr>
              ))}
            </DataTable>
            {list.data.items.length === 0 && <Text c="dimmed">No customers match.</Text>}
            <Pager page={page} limit={LIMIT} count={list.data.items.length} total={list.data.total} onPage={(p) => set({ page: String(p) })} />
          </>
        )}
      </Card>
    </>
  );
}

function PointsAdjuster({ card, onDone }: { card: Voucher; onDone: () => Promise<unknown> }) {
  const [points, setPoints] = useState<number | string>('');
  const [reason, setReason] = useState('');
  const [error, setError] = useState<unknown>(null);
  const field = fieldOfError(error, { points: 'points', reason: 'reason' });
  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    setError(null);
    try {
      await api('POST', `/v1/loyalties/members/${encodeURIComponent(card.code)}/balance`, { points: Number(points), ...(reason ? { reason } : {}) });
      notifyDone(`${points} points on ${card.code}`);
      setPoints('');
      setReason('');
      await onDone();
    } catch (e) {
      setError(e);
    }
  };
  return (
    <form onSubmit={(e) => void submit(e)}>
      <Group align="flex-start" gap="xs" wrap="wrap">
        <NumberInput aria-label={`Points for ${card.code}`} placeholder="± points" value={points} onChange={setPoints} w={120} size="xs" error={field === 'points' ? messageOf(error) : undefined} />
        <TextInput aria-label={`Reason for ${card.code}`} placeholder="Reason" value={reason} onChange={(e) => setReason(e.currentTarget.value)} w={200} size="xs" error={field === 'reason' ? messageOf(error) : undefined} />
        <Button type="submit" size="xs" variant="light">Adjust</Button>
      </Group>
      {error !== null && field === null && <Text size="xs" c="red" role="alert">{messageOf(error)}</Text>}
    </form>
  );
}

export function CustomerPage() {
  const { customerId = '' } = useParams();
  const client = useQueryClient();
  const can = useCan();
  const customer = useQuery({ queryKey: ['customer', customerId], queryFn: () => api<Customer>('GET', `/v1/customers/${encodeURIComponent(customerId)}`) });
  const id = customer.data?.id;
  const vouchers = useQuery({
    queryKey: ['customer-vouchers', id],
    enabled: Boolean(id),
    queryFn: async () => listOf<Voucher>(await api('GET', withQuery('/v1/vouchers', { customer: id, limit: 50 })), 'vouchers'),
  });
  const redemptions = useQuery({
    queryKey: ['customer-redemptions', id],
    enabled: Boolean(id),
    queryFn: async () => listOf<{ id: string; date: string; result: string; status: string; voucher?: { code: string } | null; order?: { amount?: number } | null }>(await api('GET', withQuery('/v1/redemptions', { customer: id, limit: 10 })), 'redemptions'),
  });
  const activity = useQuery({
    queryKey: ['customer-activity', id],
    enabled: Boolean(id),
    queryFn: async () => listOf<{ id: string; type: string; created_at: string }>(await api('GET', withQuery(`/v1/customers/${id}/activity`, { limit: 10 }))),
  });
  const segments = useQuery({
    queryKey: ['customer-segments', id],
    enabled: Boolean(id),
    queryFn: async () => listOf<{ id: string; name: string }>(await api('GET', `/v1/customers/${id}/segments`)),
  });

  if (customer.isPending) return <Loader aria-label="Loading customer" />;
  if (customer.isError) return <ErrorAlert error={customer.error} title="Customer not found" />;
  const c = customer.data;
  const cards = (vouchers.data?.items ?? []).filter((v) => v.type === 'LOYALTY_CARD');
  const others = (vouchers.data?.items ?? []).filter((v) => v.type !== 'LOYALTY_CARD');
  const refresh = () => client.invalidateQueries({ queryKey: ['customer-vouchers', id] });

  return (
    <Stack>
      <PageHeader title={c.name ?? c.source_id ?? c.id} description={c.email ?? undefined} />
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Card withBorder>
          <Title order={2} size="h5" mb="xs">Profile</Title>
          <Text size="sm">Id: {c.id}</Text>
          <Text size="sm">Source id: {c.source_id ?? '—'}</Text>
          <Text size="sm">Phone: {c.phone ?? '—'}</Text>
          <Text size="sm">Since: {dateTime(c.created_at)}</Text>
          <Text size="sm" mt="xs">Segments: {(segments.data?.items ?? []).map((s) => s.name).join(', ') || 'none'}</Text>
          {Object.keys(c.metadata ?? {}).length > 0 && <Json value={c.metadata} label="Metadata" />}
        </Card>
        <Card withBorder>
          <Title order={2} size="h5" mb="xs">Loyalty cards</Title>
          {cards.length === 0 && <Text size="sm" c="dimmed">No loyalty card.</Text>}
          <Stack>
            {cards.map((card) => (
              <Stack key={card.id} gap={4}>
                <Group justify="space-between">
                  <Link to={`/vouchers/${encodeURIComponent(card.code)}`}><code>{card.code}</code></Link>
                  <Badge variant="light" data-testid={`balance-${card.code}`}>{card.loyalty_card?.balance ?? 0} points</Badge>
                </Group>
                {can('POST', '/v1/loyalties/members/:memberId/balance') && <PointsAdjuster card={card} onDone={refresh} />}
              </Stack>
            ))}
          </Stack>
        </Card>
      </SimpleGrid>
      <Card withBorder>
        <Title order={2} size="h5" mb="xs">Vouchers held</Title>
        {others.length === 0 ? <Text size="sm" c="dimmed">None.</Text> : (
          <Table>
            <Table.Tbody>
              {others.map((v) => (
                <Table.Tr key={v.id}>
                  <Table.Td><Link to={`/vouchers/${encodeURIComponent(v.code)}`}><code>{v.code}</code></Link></Table.Td>
                  <Table.Td>{v.campaign ?? '—'}</Table.Td>
                  <Table.Td>{valueOf(v)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
      </Card>
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Card withBorder>
          <Title order={2} size="h5" mb="xs">Recent redemptions</Title>
          {(redemptions.data?.items ?? []).length === 0 && <Text size="sm" c="dimmed">None.</Text>}
          {(redemptions.data?.items ?? []).map((r) => (
            <Text size="sm" key={r.id}>
              <Link to={`/redemptions?open=${r.id}`}>{dateTime(r.date)}</Link> · {r.voucher?.code ?? '—'} · {r.order ? money(r.order.amount) : '—'} · {r.result === 'FAILURE' ? 'failed' : r.status}
            </Text>
          ))}
          {redemptions.data && <Button component={Link} to={`/redemptions?customer=${c.id}`} variant="subtle" size="xs" mt="xs">All of them</Button>}
        </Card>
        <Card withBorder>
          <Title order={2} size="h5" mb="xs">Activity</Title>
          <ErrorAlert error={activity.error} />
          {(activity.data?.items ?? []).length === 0 && !activity.isError && <Text size="sm" c="dimmed">Nothing yet.</Text>}
          {(activity.data?.items ?? []).map((a) => (
            <Text size="sm" key={a.id}>{dateTime(a.created_at)} · {a.type}</Text>
          ))}
        </Card>
      </SimpleGrid>
    </Stack>
  );
}
