import { ActionIcon, Badge, Button, Card, Code, Group, Loader, MultiSelect, Select, Stack, Switch, Table, Text, TextInput, Title } from '@mantine/core';
import { modals } from '@mantine/modals';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { SPEC_EVENT_KINDS } from '../../../../src/domain/webhooks/event-kinds.ts';
import { api, withQuery } from '../../api/client.ts';
import { useCan, useSession } from '../../app/session.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { confirmThen, FormCard, useFormSubmit } from '../../components/forms.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { dateTime } from '../../components/format.ts';
import { notifyDone, notifyFailed } from '../../components/notify.ts';

// Webhooks of the signed-in project (management API): configurations (target URL, event kinds, on/off),
// and each one's delivery log with status and attempts, page by page, where a finished delivery can be
// re-sent. The log refreshes itself while a delivery is still pending.

interface Webhook {
  id: string;
  target_url: string;
  events: string[];
  active: boolean;
  created_at: string;
}

interface Delivery {
  id: string;
  type: string;
  status: 'PENDING' | 'SUCCEEDED' | 'FAILED' | 'CANCELED';
  attempts: number;
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  last_response_status: number | null;
  last_error: string | null;
  attempt_log: Array<{ attempt: number; series_attempt: number; at: string; response_status: number | null; error: string | null; duration_ms: number }>;
  created_at: string;
}

interface DeliveryPage {
  data: Delivery[];
  has_more: boolean;
  more_starting_after?: string;
}

const STATUS_COLOR: Record<Delivery['status'], string> = { PENDING: 'blue', SUCCEEDED: 'green', FAILED: 'red', CANCELED: 'gray' };
const LIMIT = 20;
const FIELDS = { url: 'target_url', events: 'events' };

function DeliveryLog({ base, webhook, canResend }: { base: string; webhook: Webhook; canResend: boolean }) {
  const client = useQueryClient();
  const [status, setStatus] = useState<string | null>(null);
  // Cursor paging: the ids each page starts after (the first page: none).
  const [cursors, setCursors] = useState<string[]>([]);
  const after = cursors[cursors.length - 1];
  const deliveries = useQuery({
    queryKey: ['webhook-deliveries', webhook.id, status, after],
    queryFn: () => api<DeliveryPage>('GET', withQuery(`${base}/${webhook.id}/deliveries`, { limit: LIMIT, status, starting_after_id: after })),
    // Quickly while a delivery is pending; new deliveries show within 15 s, or at once with Refresh.
    refetchInterval: (query) => (query.state.data?.data.some((d) => d.status === 'PENDING') ? 2000 : 15_000),
  });

  const resend = async (delivery: Delivery) => {
    try {
      await api('POST', `${base}/${webhook.id}/deliveries/${delivery.id}/resend`);
      notifyDone(`Delivery ${delivery.id} queued again`);
      await client.invalidateQueries({ queryKey: ['webhook-deliveries', webhook.id] });
    } catch (error) {
      notifyFailed('The delivery was not re-sent', error);
    }
  };

  const details = (delivery: Delivery) =>
    modals.open({
      title: `Delivery ${delivery.id}`,
      size: 'lg',
      children: (
        <DataTable columns={['#', 'At', 'Answer', 'Time']} minWidth={420}>
          {delivery.attempt_log.map((a) => (
            // Numbered over the delivery's life (as its `attempts` counts them); a re-send starts a new series.
            <Table.Tr key={a.attempt} data-testid={`attempt-${a.attempt}`}>
              <Table.Td>
                {a.attempt}
                {a.series_attempt === 1 && a.attempt > 1 && (
                  <Badge ml={6} size="xs" variant="light" color="grape">
                    re-sent
                  </Badge>
                )}
              </Table.Td>
              <Table.Td>{dateTime(a.at)}</Table.Td>
              <Table.Td>{a.response_status !== null ? `HTTP ${a.response_status}` : a.error ?? 'no answer'}</Table.Td>
              <Table.Td>{a.duration_ms} ms</Table.Td>
            </Table.Tr>
          ))}
        </DataTable>
      ),
    });

  return (
    <Card withBorder data-testid={`deliveries-${webhook.id}`}>
      <Group justify="space-between" mb="sm" wrap="wrap">
        <Title order={2} size="h5">
          Deliveries to <Code>{webhook.target_url}</Code>
        </Title>
        <Group gap="xs">
        <Button size="xs" variant="default" onClick={() => void deliveries.refetch()} loading={deliveries.isFetching}>
          Refresh
        </Button>
        <Select
          aria-label="Delivery status"
          placeholder="Any status"
          clearable
          data={['PENDING', 'SUCCEEDED', 'FAILED', 'CANCELED']}
          value={status}
          onChange={(value) => {
            setStatus(value);
            setCursors([]);
          }}
          w={160}
          size="xs"
        />
        </Group>
      </Group>
      {deliveries.isPending && <Loader size="sm" aria-label="Loading deliveries" />}
      <ErrorAlert error={deliveries.error} />
      {deliveries.data && (
        <>
          <DataTable columns={['Event', 'Status', 'Attempts', 'Last answer', 'Created', '']} minWidth={640}>
            {deliveries.data.data.map((d) => (
              <Table.Tr key={d.id} data-testid={`delivery-${d.id}`}>
                <Table.Td>
                  <code>{d.type}</code>
                </Table.Td>
                <Table.Td>
                  <Badge color={STATUS_COLOR[d.status]} variant="light" data-testid="delivery-status">
                    {d.status}
                  </Badge>
                  {d.status === 'PENDING' && d.next_attempt_at && (
                    <Text size="xs" c="dimmed">
                      next try {dateTime(d.next_attempt_at)}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td>{d.attempts}</Table.Td>
                <Table.Td>
                  {d.last_response_status !== null ? `HTTP ${d.last_response_status}` : d.last_error ?? '—'}
                </Table.Td>
                <Table.Td>{dateTime(d.created_at)}</Table.Td>
                <Table.Td>
                  <Group gap={4} justify="flex-end" wrap="nowrap">
                    <Button size="compact-xs" variant="default" onClick={() => details(d)} aria-label={`Attempts of ${d.id}`}>
                      Attempts
                    </Button>
                    {canResend && (d.status === 'FAILED' || d.status === 'SUCCEEDED') && (
                      <Button size="compact-xs" variant="light" onClick={() => void resend(d)} aria-label={`Re-send ${d.id}`}>
                        Re-send
                      </Button>
                    )}
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </DataTable>
          {deliveries.data.data.length === 0 && <Text c="dimmed">No deliveries{status ? ` with status ${status}` : ''} yet.</Text>}
          <Group justify="flex-end" gap="xs" mt="sm">
            <Button variant="default" size="xs" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
              Newer
            </Button>
            <Button
              variant="default"
              size="xs"
              disabled={!deliveries.data.has_more || !deliveries.data.more_starting_after}
              onClick={() => setCursors([...cursors, deliveries.data.more_starting_after ?? ''])}
            >
              Older
            </Button>
          </Group>
        </>
      )}
    </Card>
  );
}

export function WebhooksPage() {
  const { data: session } = useSession();
  const can = useCan();
  const client = useQueryClient();
  const base = `/management/v1/projects/${session?.project.id ?? ''}/webhooks`;
  const mayCreate = can('POST', '/management/v1/projects/:projectId/webhooks');
  const mayUpdate = can('PUT', '/management/v1/projects/:projectId/webhooks/:webhookId');
  const mayDelete = can('DELETE', '/management/v1/projects/:projectId/webhooks/:webhookId');
  const hooks = useQuery({ queryKey: ['webhooks', base], queryFn: () => api<{ data: Webhook[] }>('GET', base) });
  const [selected, setSelected] = useState<string | null>(null);
  const [form, setForm] = useState<{ url: string; events: string[] }>({ url: '', events: [] });
  const { busy, errorFor, formError, submit } = useFormSubmit(FIELDS);
  const refresh = () => client.invalidateQueries({ queryKey: ['webhooks', base] });
  const shown = hooks.data?.data.find((h) => h.id === selected) ?? hooks.data?.data[0];

  const create = submit(async () => {
    const created = await api<Webhook>('POST', base, { target_url: form.url, events: form.events });
    notifyDone('Webhook created');
    setForm({ url: '', events: [] });
    setSelected(created.id);
    await refresh();
  });

  const setActive = async (hook: Webhook, active: boolean) => {
    try {
      await api('PUT', `${base}/${hook.id}`, { target_url: hook.target_url, events: hook.events, active });
      await refresh();
    } catch (caught) {
      notifyFailed('The webhook was not changed', caught);
    }
  };

  const remove = (hook: Webhook) =>
    confirmThen({
      title: 'Delete this webhook?',
      body: `${hook.target_url} gets no more deliveries; deliveries still pending are cancelled.`,
      confirm: 'Delete',
      action: async () => {
        await api('DELETE', `${base}/${hook.id}`);
        await refresh();
      },
      done: 'Webhook deleted',
      failed: 'The webhook was not deleted',
    });

  return (
    <Stack>
      <PageHeader title="Webhooks" description="Where Punchcard sends events as they happen, and what each delivery answered." />
      <Card withBorder>
        {hooks.isPending && <Loader aria-label="Loading webhooks" />}
        <ErrorAlert error={hooks.error} />
        {hooks.data && hooks.data.data.length === 0 && <Text c="dimmed">No webhook yet.</Text>}
        {hooks.data && hooks.data.data.length > 0 && (
          <DataTable columns={['Target', 'Events', 'On', '']} minWidth={560} highlightOnHover>
            {hooks.data.data.map((hook) => (
              <Table.Tr key={hook.id} data-testid={`webhook-${hook.id}`} bg={hook.id === shown?.id ? 'var(--mantine-color-blue-light)' : undefined}>
                <Table.Td>
                  <Button variant="subtle" size="compact-sm" onClick={() => setSelected(hook.id)} aria-label={`Deliveries of ${hook.target_url}`} styles={{ label: { whiteSpace: 'normal', textAlign: 'left' } }}>
                    {hook.target_url}
                  </Button>
                </Table.Td>
                <Table.Td>
                  <Text size="xs">{hook.events.join(', ')}</Text>
                </Table.Td>
                <Table.Td>
                  <Switch checked={hook.active} disabled={!mayUpdate} onChange={(e) => void setActive(hook, e.currentTarget.checked)} aria-label={`Webhook ${hook.target_url} on`} />
                </Table.Td>
                <Table.Td>
                  {mayDelete && (
                    <ActionIcon variant="subtle" color="red" aria-label={`Delete webhook ${hook.target_url}`} onClick={() => remove(hook)}>
                      ✕
                    </ActionIcon>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </DataTable>
        )}
      </Card>
      {shown && <DeliveryLog key={shown.id} base={base} webhook={shown} canResend={can('POST', '/management/v1/projects/:projectId/webhooks/:webhookId/deliveries/:deliveryId/resend')} />}
      {mayCreate && (
        <FormCard title="New webhook" onSubmit={create} error={formError} errorTitle="The webhook was not created" submit="Create webhook" busy={busy}>
          <TextInput label="Target URL" placeholder="https://shop.example.com/punchcard-events" required value={form.url} onChange={(e) => setForm({ ...form, url: e.currentTarget.value })} error={errorFor('url')} />
          <MultiSelect label="Events" placeholder="Pick one or more" searchable data={[...SPEC_EVENT_KINDS]} value={form.events} onChange={(events) => setForm({ ...form, events })} error={errorFor('events')} />
        </FormCard>
      )}
    </Stack>
  );
}
