import { Badge, Button, Card, Group, Loader, MultiSelect, Table, Text, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { api, listOf, withQuery } from '../../api/client.ts';
import { DataTable } from '../../components/DataTable.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { Pager } from '../../components/Pager.tsx';
import { dateTime, money } from '../../components/format.ts';
import { customerLabel, ORDER_STATUSES, STATUS_COLOR, useCustomers, type Order } from './orders.ts';

// Orders, newest first, with the API's filters: status, customer (id or source_id) and the days they
// were created in. Filters live in the address, so a filtered list can be shared and reloaded.

const LIMIT = 20;

export function OrdersPage() {
  const [params, setParams] = useSearchParams();
  const page = Number(params.get('page') ?? '1');
  const statuses = params.getAll('status');
  const customer = params.get('customer') ?? '';
  const from = params.get('from') ?? '';
  const to = params.get('to') ?? '';
  const [form, setForm] = useState({ customer, from, to });
  const list = useQuery({
    queryKey: ['orders', page, statuses.join(','), customer, from, to],
    queryFn: async () => {
      const query = withQuery('/v1/orders', { limit: LIMIT, page, order: '-created_at', customer, start_date: from, end_date: to });
      // Each status is its own `status=` member: the API takes several.
      const path = statuses.reduce((p, s) => `${p}&status=${encodeURIComponent(s)}`, query);
      return listOf<Order>(await api('GET', path), 'orders');
    },
  });
  const customers = useCustomers((list.data?.items ?? []).map((o) => o.customer_id));
  const set = (patch: Record<string, string | string[]>) => {
    const next = new URLSearchParams(params);
    for (const [k, v] of Object.entries(patch)) {
      next.delete(k);
      for (const value of Array.isArray(v) ? v : [v]) if (value !== '') next.append(k, value);
    }
    setParams(next);
  };

  return (
    <>
      <PageHeader title="Orders" description="Orders your shop sent, newest first, with what they cost and who placed them." />
      <Card withBorder>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            set({ customer: form.customer.trim(), from: form.from, to: form.to, page: '' });
          }}
        >
          <Group mb="sm" align="flex-end" wrap="wrap">
            <MultiSelect label="Status" searchable placeholder={statuses.length ? undefined : 'Any'} data={[...ORDER_STATUSES]} value={statuses} onChange={(v) => set({ status: v, page: '' })} w={240} clearable />
            <TextInput label="Customer (id or source_id)" value={form.customer} onChange={(e) => setForm({ ...form, customer: e.currentTarget.value })} w={220} />
            {/* Side by side even on a phone: the two ends of one range. */}
            <Group gap="xs" wrap="nowrap">
              <TextInput label="Created from" type="date" value={form.from} onChange={(e) => setForm({ ...form, from: e.currentTarget.value })} w={150} />
              <TextInput label="Created to" type="date" value={form.to} onChange={(e) => setForm({ ...form, to: e.currentTarget.value })} w={150} />
            </Group>
            <Button type="submit" variant="default">
              Filter
            </Button>
          </Group>
        </form>
        {list.isPending && <Loader aria-label="Loading orders" />}
        <ErrorAlert error={list.error} />
        {list.data && (
          <>
            <DataTable columns={['Order', 'Created', 'Customer', 'Items', 'Total', 'Status']} minWidth={720} highlightOnHover>
              {list.data.items.map((o) => (
                <Table.Tr key={o.id} data-testid={`order-row-${o.id}`}>
                  <Table.Td>
                    <Link to={`/orders/${encodeURIComponent(o.id)}`}>{o.source_id ?? o.id}</Link>
                  </Table.Td>
                  <Table.Td>{dateTime(o.created_at)}</Table.Td>
                  <Table.Td>{o.customer_id ? <Link to={`/customers/${encodeURIComponent(o.customer_id)}`}>{customerLabel(customers.get(o.customer_id), o.customer_id)}</Link> : '—'}</Table.Td>
                  <Table.Td>{o.items.reduce((n, item) => n + item.quantity, 0)}</Table.Td>
                  <Table.Td>
                    {money(o.total_amount)}
                    {o.total_discount_amount > 0 && (
                      <Text span size="xs" c="dimmed" ml={4}>
                        (−{money(o.total_discount_amount)})
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>
                    <Badge variant="light" color={STATUS_COLOR[o.status] ?? 'gray'}>
                      {o.status}
                    </Badge>
                  </Table.Td>
                </Table.Tr>
              ))}
            </DataTable>
            {list.data.items.length === 0 && <Text c="dimmed">No orders match.</Text>}
            <Pager page={page} limit={LIMIT} count={list.data.items.length} total={list.data.total} onPage={(p) => set({ page: String(p) })} />
          </>
        )}
      </Card>
    </>
  );
}
