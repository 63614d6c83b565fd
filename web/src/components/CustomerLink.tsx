import { Anchor, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api } from '../api/client.ts';

// A person shown by name and e-mail, never by an internal id, linked to their customer page. Objects that
// carry the customer (redemption records) pass it as `known`; otherwise the customer is read once per id
// and kept in the query cache under the same key the customer page uses, so a list of codes held by the
// same person asks once.

export interface CustomerSummary {
  id: string;
  name?: string | null;
  email?: string | null;
  source_id?: string | null;
}

const hasName = (c: CustomerSummary | null | undefined): c is CustomerSummary => Boolean(c && (c.name || c.email || c.source_id));

export function CustomerLink({ id, known }: { id: string; known?: CustomerSummary | null }) {
  const fetched = useQuery({
    queryKey: ['customer', id],
    enabled: !hasName(known),
    staleTime: 60_000,
    retry: false,
    queryFn: () => api<CustomerSummary>('GET', `/v1/customers/${encodeURIComponent(id)}`),
  });
  const customer = hasName(known) ? known : fetched.data;
  const primary = customer?.name || customer?.email || customer?.source_id || (fetched.isPending ? '…' : id);
  const secondary = customer?.name ? customer.email : null;
  return (
    <Stack gap={0} data-testid="customer-link">
      <Anchor component={Link} to={`/customers/${encodeURIComponent(id)}`} size="sm" fw={500}>
        {primary}
      </Anchor>
      {secondary && (
        <Text size="xs" c="dimmed" truncate>
          {secondary}
        </Text>
      )}
    </Stack>
  );
}
