import { Badge, Card, Group, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { ApiError, api, listOf } from '../../api/client.ts';
import { dateTime, money } from '../../components/format.ts';
import type { Customer } from './types.ts';

// Who she is (profile, address, metadata read against the project's schema for customers) and what she
// has done in all (the customer's summary, kept by the server as orders and redemptions happen).

interface SchemaProperty {
  type: string;
  array: boolean;
  optional: boolean;
  deleted?: boolean;
}

function useCustomerSchema() {
  return useQuery({
    queryKey: ['metadata-schema', 'customer'],
    queryFn: async () => {
      try {
        return await api<{ properties: Record<string, SchemaProperty> }>('GET', '/v1/metadata-schemas/customer');
      } catch (error) {
        // A project without a schema for customers: metadata is shown as stored.
        if (error instanceof ApiError && error.status === 404) return null;
        throw error;
      }
    },
  });
}

const shown = (value: unknown) => (value === null || value === undefined ? '—' : typeof value === 'object' ? JSON.stringify(value) : String(value));

function Line({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <Group gap="xs" wrap="nowrap" align="flex-start">
      <Text size="sm" c="dimmed" w={110} style={{ flex: 'none' }}>
        {label}
      </Text>
      <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
        {children}
      </Text>
    </Group>
  );
}

function MetadataTable({ metadata }: { metadata: Record<string, unknown> }) {
  const schema = useCustomerSchema();
  const defined = Object.entries(schema.data?.properties ?? {}).filter(([, p]) => !p.deleted);
  const names = new Set(defined.map(([name]) => name));
  const others = Object.keys(metadata).filter((key) => !names.has(key));
  if (defined.length === 0 && others.length === 0) return <Text size="sm" c="dimmed">No metadata.</Text>;
  return (
    <Table aria-label="Metadata" layout="fixed">
      <Table.Tbody>
        {defined.map(([name, p]) => (
          <Table.Tr key={name}>
            <Table.Td w="40%">
              <Text size="sm">{name}</Text>
              <Text size="xs" c="dimmed">
                {p.type}
                {p.array ? ' list' : ''}
                {p.optional ? '' : ', required'}
              </Text>
            </Table.Td>
            <Table.Td style={{ overflowWrap: 'anywhere' }}>{shown(metadata[name])}</Table.Td>
          </Table.Tr>
        ))}
        {others.map((key) => (
          <Table.Tr key={key}>
            <Table.Td w="40%">
              <Text size="sm">{key}</Text>
              {schema.data && (
                <Text size="xs" c="dimmed">
                  not in the schema
                </Text>
              )}
            </Table.Td>
            <Table.Td style={{ overflowWrap: 'anywhere' }}>{shown(metadata[key])}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

export function ProfileCard({ customer: c }: { customer: Customer }) {
  const segments = useQuery({
    queryKey: ['customer-segments', c.id],
    queryFn: async () => listOf<{ id: string; name: string }>(await api('GET', `/v1/customers/${c.id}/segments`)),
  });
  const address = c.address ? [c.address.line_1, c.address.line_2, [c.address.postal_code, c.address.city].filter(Boolean).join(' '), c.address.state, c.address.country].filter(Boolean).join(', ') : '';
  return (
    <Card withBorder>
      <Title order={2} size="h5" mb="xs">
        Profile
      </Title>
      <Stack gap={4}>
        <Line label="E-mail">{c.email ?? '—'}</Line>
        <Line label="Phone">{c.phone ?? '—'}</Line>
        <Line label="Source id">{c.source_id ?? '—'}</Line>
        <Line label="Id">{c.id}</Line>
        <Line label="Address">{address || '—'}</Line>
        {c.description && <Line label="Description">{c.description}</Line>}
        <Line label="Customer since">{dateTime(c.created_at)}</Line>
        <Line label="Segments">
          {(segments.data?.items ?? []).map((s) => (
            <Badge key={s.id} variant="light" mr={4}>
              {s.name}
            </Badge>
          ))}
          {segments.data && segments.data.items.length === 0 && 'none'}
        </Line>
      </Stack>
      <Title order={3} size="h6" mt="md" mb={4}>
        Metadata
      </Title>
      <MetadataTable metadata={c.metadata} />
    </Card>
  );
}

export function TotalsCard({ customer: c }: { customer: Customer }) {
  const o = c.summary.orders;
  const r = c.summary.redemptions;
  const figures: [string, string][] = [
    ['Spent', money(o.total_amount)],
    ['Orders', String(o.total_count)],
    ['Average order', money(o.average_amount)],
    ['Last order', o.last_order_date ? `${money(o.last_order_amount)} · ${dateTime(o.last_order_date)}` : '—'],
    ['Redemptions', `${r.total_succeeded} succeeded · ${r.total_failed} failed · ${r.total_rolled_back} rolled back`],
    ['Loyalty points', String(c.loyalty.points)],
    ['Referred', String(c.loyalty.referred_customers)],
  ];
  return (
    <Card withBorder aria-label="Lifetime totals">
      <Title order={2} size="h5" mb="xs">
        Lifetime totals
      </Title>
      <SimpleGrid cols={{ base: 2, sm: 3 }} spacing="sm">
        {figures.map(([label, value]) => (
          <Stack gap={0} key={label}>
            <Text size="xs" c="dimmed">
              {label}
            </Text>
            <Text size="sm" fw={500}>
              {value}
            </Text>
          </Stack>
        ))}
      </SimpleGrid>
    </Card>
  );
}

