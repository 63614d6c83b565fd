import { Badge, Button, Card, CopyButton, Group, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api, listOf } from '../../api/client.ts';
import { useCan } from '../../app/session.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { dateTime } from '../../components/format.ts';
import { confirmThen } from '../../components/forms.tsx';
import { customerLabel, customerPath, type Customer } from './types.ts';

// What the customer agreed to (her answers to the project's consents) and her cockpit link: the page
// where she sees her cards and rewards without an account, which the agent can send her or replace.

interface Consent {
  id: string;
  name: string;
  description: string | null;
}

export function ConsentsCard({ customer }: { customer: Customer }) {
  const consents = useQuery({
    queryKey: ['consents'],
    queryFn: async () => (await api<{ consents: { data: Consent[] } }>('GET', '/v1/consents')).consents.data,
  });
  const answers = useQuery({
    queryKey: ['customer-consents', customer.id],
    queryFn: async () => listOf<{ consent_id: string; granted: boolean; updated_at: string }>(await api('GET', `${customerPath(customer.id)}/consents`)).items,
  });
  const answerOf = new Map((answers.data ?? []).map((a) => [a.consent_id, a]));
  return (
    <Card withBorder>
      <Title order={2} size="h5" mb="xs">
        Consents
      </Title>
      <ErrorAlert error={consents.error ?? answers.error} />
      {consents.data?.length === 0 && (
        <Text size="sm" c="dimmed">
          The project asks for no consents.
        </Text>
      )}
      <Table aria-label="Consents">
        <Table.Tbody>
          {(consents.data ?? []).map((consent) => {
            const answer = answerOf.get(consent.id);
            return (
              <Table.Tr key={consent.id}>
                <Table.Td>
                  <Text size="sm">{consent.name}</Text>
                  {consent.description && (
                    <Text size="xs" c="dimmed">
                      {consent.description}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td ta="right">
                  {answer ? (
                    <Stack gap={0} align="flex-end">
                      <Badge color={answer.granted ? 'green' : 'gray'} variant="light">
                        {answer.granted ? 'Agreed' : 'Declined'}
                      </Badge>
                      <Text size="xs" c="dimmed">
                        {dateTime(answer.updated_at)}
                      </Text>
                    </Stack>
                  ) : (
                    <Text size="sm" c="dimmed">
                      Not asked yet
                    </Text>
                  )}
                </Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
    </Card>
  );
}

export function CockpitCard({ customer, onRotated }: { customer: Customer; onRotated: (c: Customer) => void }) {
  const can = useCan();
  const url = customer.assets?.cockpit_url ?? null;
  const rotate = () =>
    confirmThen({
      title: `New cockpit link for ${customerLabel(customer)}?`,
      body: 'The link she has now stops working at once; she can only open her cockpit with the new one you send her.',
      confirm: 'Replace the link',
      action: async () => onRotated(await api<Customer>('POST', `${customerPath(customer.id)}/cockpit/rotate`, {})),
      done: 'The old cockpit link no longer works',
      failed: 'The link was not replaced',
    });
  return (
    <Card withBorder>
      <Title order={2} size="h5" mb="xs">
        Cockpit link
      </Title>
      {url === null ? (
        <Text size="sm" c="dimmed">
          Your role may not see cockpit links.
        </Text>
      ) : (
        <Stack gap="xs">
          <Text size="sm" c="dimmed">
            Her loyalty cards, rewards and vouchers, without a password. Anyone with the link can use it.
          </Text>
          <TextInput aria-label="Cockpit link" value={url} readOnly onFocus={(e) => e.currentTarget.select()} data-testid="cockpit-link" />
          <Group gap="xs">
            <CopyButton value={url}>
              {({ copied, copy }) => (
                <Button size="xs" variant="light" color={copied ? 'teal' : undefined} onClick={copy}>
                  {copied ? 'Copied' : 'Copy link'}
                </Button>
              )}
            </CopyButton>
            {can('POST', '/v1/customers/:customerId/cockpit/rotate') && (
              <Button size="xs" variant="subtle" color="red" onClick={rotate}>
                Replace link…
              </Button>
            )}
          </Group>
        </Stack>
      )}
    </Card>
  );
}
