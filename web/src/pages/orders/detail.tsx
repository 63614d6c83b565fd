import { Badge, Button, Card, Group, Loader, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { useQueries, useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { api } from '../../api/client.ts';
import { DataTable } from '../../components/DataTable.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { Json } from '../../components/Json.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { dateTime, money } from '../../components/format.ts';
import { customerLabel, STATUS_COLOR, useCustomers, type Order, type OrderItem } from './orders.ts';

// One order: its lines (what was bought, how many, at what price), its amounts, who placed it, and the
// redemptions made with it. The order names those redemptions itself (`redemptions`, keyed by id), so
// each is read by id rather than searched for in the redemption list.

interface RedemptionRecord {
  id: string;
  date: string;
  result: 'SUCCESS' | 'FAILURE';
  status: string;
  voucher?: { code: string } | null;
  promotion_tier?: { name?: string } | null;
  order?: { total_applied_discount_amount?: number } | null;
  gift?: { amount: number } | null;
  loyalty_card?: { points: number } | null;
}

const itemName = (item: OrderItem) => item.product?.name ?? item.product?.source_id ?? item.product_id ?? (item.related_object === 'product' ? item.source_id : null) ?? '—';
const skuName = (item: OrderItem) => item.sku?.sku ?? item.sku?.source_id ?? item.sku_id ?? (item.related_object === 'sku' ? item.source_id : null);

function gave(r: RedemptionRecord): string {
  if (r.gift) return `${money(r.gift.amount)} gift credit`;
  if (r.loyalty_card) return `${r.loyalty_card.points} points`;
  return `${money(r.order?.total_applied_discount_amount ?? 0)} off`;
}

function Redemptions({ order }: { order: Order }) {
  const ids = Object.keys(order.redemptions);
  const records = useQueries({
    queries: ids.map((id) => ({ queryKey: ['redemption', id], queryFn: () => api<RedemptionRecord>('GET', `/v1/redemptions/${encodeURIComponent(id)}`) })),
  });
  return (
    <Card withBorder>
      <Title order={2} size="h5" mb="xs">
        Redemptions with this order
      </Title>
      {ids.length === 0 && (
        <Text size="sm" c="dimmed">
          None: no code or promotion was redeemed with it.
        </Text>
      )}
      <Stack gap="xs">
        {ids.map((id, i) => {
          const entry = order.redemptions[id];
          const record = records[i];
          return (
            <Group key={id} gap="xs" wrap="wrap" data-testid={`order-redemption-${id}`}>
              <Text size="sm">
                <Link to={`/redemptions?open=${encodeURIComponent(id)}`}>{dateTime(entry?.date)}</Link>
              </Text>
              {record?.isPending && <Loader size="xs" aria-label={`Loading redemption ${id}`} />}
              {record?.error && <ErrorAlert error={record.error} />}
              {record?.data && (
                <>
                  <code>{record.data.voucher?.code ?? record.data.promotion_tier?.name ?? entry?.related_object_id}</code>
                  <Text size="sm">{gave(record.data)}</Text>
                  <Badge variant="light" color={record.data.result === 'FAILURE' ? 'red' : record.data.status === 'ROLLED_BACK' ? 'orange' : 'green'}>
                    {record.data.result === 'FAILURE' ? 'failed' : record.data.status}
                  </Badge>
                </>
              )}
            </Group>
          );
        })}
      </Stack>
    </Card>
  );
}

export function OrderPage() {
  const { orderId = '' } = useParams();
  const order = useQuery({ queryKey: ['order', orderId], queryFn: () => api<Order>('GET', `/v1/orders/${encodeURIComponent(orderId)}`) });
  const customers = useCustomers([order.data?.customer_id ?? null, order.data?.referrer_id ?? null]);

  if (order.isPending) return <Loader aria-label="Loading order" />;
  if (order.isError) return <ErrorAlert error={order.error} title="Order not found" />;
  const o = order.data;
  const person = (id: string | null) => (id ? <Link to={`/customers/${encodeURIComponent(id)}`}>{customerLabel(customers.get(id), id)}</Link> : '—');

  return (
    <Stack>
      <PageHeader
        title={`Order ${o.source_id ?? o.id}`}
        description={`Created ${dateTime(o.created_at)}${o.updated_at ? ` · changed ${dateTime(o.updated_at)}` : ''}`}
        actions={
          <Button component={Link} to="/orders" variant="subtle">
            All orders
          </Button>
        }
      />
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Card withBorder>
          <Table variant="vertical" layout="fixed">
            <Table.Tbody>
              <Table.Tr>
                <Table.Th w={120}>Status</Table.Th>
                <Table.Td>
                  <Badge variant="light" color={STATUS_COLOR[o.status] ?? 'gray'} data-testid="order-status">
                    {o.status}
                  </Badge>
                </Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th>Customer</Table.Th>
                <Table.Td data-testid="order-customer">{person(o.customer_id)}</Table.Td>
              </Table.Tr>
              {o.referrer_id && (
                <Table.Tr>
                  <Table.Th>Referred by</Table.Th>
                  <Table.Td>{person(o.referrer_id)}</Table.Td>
                </Table.Tr>
              )}
              <Table.Tr>
                <Table.Th>Id</Table.Th>
                <Table.Td style={{ overflowWrap: 'anywhere' }}>{o.id}</Table.Td>
              </Table.Tr>
            </Table.Tbody>
          </Table>
        </Card>
        <Card withBorder>
          <Table variant="vertical" layout="fixed" data-testid="order-amounts">
            <Table.Tbody>
              <Table.Tr>
                <Table.Th w={120}>Amount</Table.Th>
                <Table.Td>{money(o.amount)}</Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th>Discounts</Table.Th>
                <Table.Td>{o.total_discount_amount > 0 ? `−${money(o.total_discount_amount)}` : money(0)}</Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th>Total</Table.Th>
                <Table.Td fw={600} data-testid="order-total">
                  {money(o.total_amount)}
                </Table.Td>
              </Table.Tr>
            </Table.Tbody>
          </Table>
        </Card>
      </SimpleGrid>
      <Card withBorder>
        <Title order={2} size="h5" mb="xs">
          Items
        </Title>
        {o.items.length === 0 ? (
          <Text size="sm" c="dimmed">
            No items: the order was sent with its amount only.
          </Text>
        ) : (
          <DataTable columns={['Product', 'SKU', 'Quantity', 'Price', 'Amount', 'Discount', 'Subtotal']} minWidth={720}>
            {o.items.map((item, i) => (
              <Table.Tr key={i} data-testid={`order-item-${i}`}>
                <Table.Td>{item.product_id ? <Link to={`/products/${encodeURIComponent(item.product_id)}`}>{itemName(item)}</Link> : itemName(item)}</Table.Td>
                <Table.Td>{skuName(item) ?? '—'}</Table.Td>
                <Table.Td>{item.quantity}</Table.Td>
                <Table.Td>{money(item.price)}</Table.Td>
                <Table.Td>{money(item.amount)}</Table.Td>
                <Table.Td>{item.discount_amount > 0 ? `−${money(item.discount_amount)}` : '—'}</Table.Td>
                <Table.Td>{money(item.subtotal_amount)}</Table.Td>
              </Table.Tr>
            ))}
          </DataTable>
        )}
      </Card>
      <Redemptions order={o} />
      {Object.keys(o.metadata).length > 0 && (
        <Card withBorder>
          <Title order={2} size="h5" mb="xs">
            Metadata
          </Title>
          <Json value={o.metadata} label="Order metadata" />
        </Card>
      )}
    </Stack>
  );
}
