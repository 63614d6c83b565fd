import { Badge, Card, Group, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api, listOf, withQuery } from '../../api/client.ts';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { dateTime, money } from '../../components/format.ts';

// Her orders, newest first, each with what was in it (GET /v1/orders?customer=, the list's customer filter).

interface OrderItem {
  product_id: string | null;
  sku_id: string | null;
  source_id: string | null;
  quantity: number;
  amount: number | null;
  price: number | null;
  product?: { name: string | null };
  sku?: { sku: string | null };
}

interface Order {
  id: string;
  source_id: string | null;
  created_at: string;
  status: string;
  amount: number;
  total_discount_amount: number;
  total_amount: number;
  customer_id: string | null;
  items: OrderItem[];
}

const LIMIT = 10;

const itemName = (item: OrderItem) => item.product?.name ?? item.sku?.sku ?? item.source_id ?? item.product_id ?? item.sku_id ?? 'Item';

export function OrdersCard({ customerId }: { customerId: string }) {
  const orders = useQuery({
    queryKey: ['customer-orders', customerId],
    queryFn: async () => listOf<Order>(await api('GET', withQuery('/v1/orders', { customer: customerId, order: '-created_at', limit: LIMIT })), 'orders'),
  });
  // Only hers, whatever the server did with the filter.
  const mine = (orders.data?.items ?? []).filter((o) => o.customer_id === customerId);
  return (
    <Card withBorder>
      <Title order={2} size="h5" mb="xs">
        Orders
      </Title>
      <ErrorAlert error={orders.error} />
      {orders.data && mine.length === 0 && (
        <Text size="sm" c="dimmed">
          No orders.
        </Text>
      )}
      <Stack gap="sm">
        {mine.map((o) => (
          <Stack key={o.id} gap={2} data-testid={`order-${o.id}`}>
            <Group justify="space-between" gap="xs">
              <Text size="sm" fw={500}>
                {o.source_id ?? o.id}
              </Text>
              <Group gap="xs">
                <Badge variant="light" size="sm">
                  {o.status}
                </Badge>
                <Text size="sm" fw={500}>
                  {money(o.total_amount)}
                </Text>
              </Group>
            </Group>
            <Text size="xs" c="dimmed">
              {dateTime(o.created_at)}
              {o.total_discount_amount > 0 && ` · ${money(o.amount)} before ${money(o.total_discount_amount)} off`}
            </Text>
            {o.items.map((item, i) => (
              <Group key={i} justify="space-between" gap="xs" pl="sm" wrap="nowrap">
                <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                  {item.quantity} × {itemName(item)}
                </Text>
                <Text size="sm">{money(item.amount)}</Text>
              </Group>
            ))}
          </Stack>
        ))}
      </Stack>
      {orders.data && orders.data.total !== null && mine.length === LIMIT && (
        <Text size="xs" c="dimmed" mt="xs">
          The {LIMIT} latest shown.
        </Text>
      )}
    </Card>
  );
}
