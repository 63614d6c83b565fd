import { ActionIcon, Badge, Button, Card, Code, Group, Loader, MultiSelect, ScrollArea, Select, Stack, Switch, Table, Text, TextInput, Title } from '@mantine/core';
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

// Webhooks of the signed-in project (management API): configurations (target URL, event kinds, on/off,
// edited in place), the secret that signs deliveries (shown on demand, rotated), and each one's delivery
// log with status and attempts, page by page, where a finished delivery can be re-sent and a test event
// sent. Each attempt shows why it failed, the request sent (signatures withheld) and the answer (first 4 KB).
// The log refreshes itself while a delivery is still pending.

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
  attempt_log: Attempt[];
  created_at: string;
}

interface Attempt {
  attempt: number;
  series_attempt: number;
  at: string;
  response_status: number | null;
  error: string | null;
  duration_ms: number;
  request?: { url: string; headers: Record<string, string>; body: string; body_truncated: boolean };
  response?: { headers: Record<string, string>; body: string; body_truncated: boolean };
}

/** Headers and body as they went over the wire, for reading (the body pretty-printed when it is JSON). */
function wireText(headers: Record<string, string>, body: string, truncated: boolean): string {
  let shown = body;
  try {
    if (!truncated) shown = JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    // Not JSON: shown as received.
  }
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}`).join('\n');
  return `${head}\n\n${shown}${truncated ? '\n… (cut at 4 KB)' : ''}`;
}

/** The attempts of one delivery; the one picked (at first the latest) shows its request and answer. */
function AttemptLog({ delivery }: { delivery: Delivery }) {
  const [picked, setPicked] = useState(delivery.attempt_log.length);
  const attempt = delivery.attempt_log.find((a) => a.attempt === picked);
  return (
    <Stack>
      <DataTable columns={['#', 'At', 'Answer', 'Time']} minWidth={420}>
        {delivery.attempt_log.map((a) => (
          // Numbered over the delivery's life (as its `attempts` counts them); a re-send starts a new series.
          <Table.Tr key={a.attempt} data-testid={`attempt-${a.attempt}`} onClick={() => setPicked(a.attempt)} style={{ cursor: 'pointer' }} bg={a.attempt === picked ? 'var(--mantine-color-blue-light)' : undefined}>
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
      {attempt && (
        <Stack gap="xs" data-testid="attempt-details">
          <Title order={3} size="h6">
            Attempt {attempt.attempt}: {attempt.error === null ? 'delivered' : attempt.error}
          </Title>
          {attempt.request ? (
            <>
              <Text size="sm" fw={500}>
                Request: POST <Code>{attempt.request.url}</Code>
              </Text>
              <ScrollArea.Autosize mah={220} type="auto">
                <Code block data-testid="attempt-request">
                  {wireText(attempt.request.headers, attempt.request.body, attempt.request.body_truncated)}
                </Code>
              </ScrollArea.Autosize>
              <Text size="sm" fw={500}>
                Answer
              </Text>
              {attempt.response ? (
                <ScrollArea.Autosize mah={220} type="auto">
                  <Code block data-testid="attempt-response">
                    {`HTTP ${attempt.response_status ?? ''}\n${wireText(attempt.response.headers, attempt.response.body, attempt.response.body_truncated)}`}
                  </Code>
                </ScrollArea.Autosize>
              ) : (
                <Text size="sm" c="dimmed" data-testid="attempt-response">
                  No answer: {attempt.error ?? 'none'}
                </Text>
              )}
            </>
          ) : (
            <Text size="sm" c="dimmed">
              The request and answer of this attempt were not kept (it was made before the log kept them).
            </Text>
          )}
        </Stack>
      )}
    </Stack>
  );
}

interface DeliveryPage {
  data: Delivery[];
  has_more: boolean;
  more_starting_after?: string;
}

const STATUS_COLOR: Record<Delivery['status'], string> = { PENDING: 'blue', SUCCEEDED: 'green', FAILED: 'red', CANCELED: 'gray' };
const LIMIT = 20;
const FIELDS = { url: 'target_url', events: 'events' };

function DeliveryLog({ base, webhook, canResend, canTest }: { base: string; webhook: Webhook; canResend: boolean; canTest: boolean }) {
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
      children: <AttemptLog delivery={delivery} />,
    });

  const sendTest = async () => {
    try {
      await api('POST', `${base}/${webhook.id}/test`);
      notifyDone('Test event queued: it shows in the log once sent');
      await client.invalidateQueries({ queryKey: ['webhook-deliveries', webhook.id] });
    } catch (error) {
      notifyFailed('The test event was not sent', error);
    }
  };

  return (
    <Card withBorder data-testid={`deliveries-${webhook.id}`}>
      <Group justify="space-between" mb="sm" wrap="wrap">
        <Title order={2} size="h5">
          Deliveries to <Code>{webhook.target_url}</Code>
        </Title>
        <Group gap="xs">
        {canTest && (
          <Button size="xs" variant="light" onClick={() => void sendTest()} disabled={!webhook.active} title={webhook.active ? undefined : 'Switch the webhook on first'}>
            Send test event
          </Button>
        )}
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

/** The secret that signs every delivery of the project: hidden until asked for, and rotated on demand. */
function SigningSecret({ projectId, mayRotate }: { projectId: string; mayRotate: boolean }) {
  const [shown, setShown] = useState(false);
  const client = useQueryClient();
  const token = useQuery({
    queryKey: ['webhook-token', projectId],
    queryFn: async () => (await api<{ webhook_token: string | null }>('GET', `/management/v1/projects/${projectId}`)).webhook_token,
    enabled: shown,
  });
  const rotate = () =>
    confirmThen({
      title: 'Rotate the signing secret?',
      body: 'Every delivery from now on, retries included, is signed with a new secret. Receivers that check signatures reject them until they are given the new one.',
      confirm: 'Rotate secret',
      action: async () => {
        const rotated = await api<{ webhook_token: string }>('POST', `/management/v1/projects/${projectId}/webhook-token/rotate`);
        client.setQueryData(['webhook-token', projectId], rotated.webhook_token);
        setShown(true);
      },
      done: 'Signing secret rotated',
      failed: 'The secret was not rotated',
    });
  return (
    <Card withBorder>
      <Group justify="space-between" wrap="wrap" gap="xs">
        <Stack gap={2}>
          <Title order={2} size="h5">
            Signing secret
          </Title>
          <Text size="xs" c="dimmed">
            Receivers check x-punchcard-signature (or x-voucherify-signature) with it.
          </Text>
        </Stack>
        <Group gap="xs">
          <Button size="xs" variant="default" onClick={() => setShown(!shown)}>
            {shown ? 'Hide secret' : 'Reveal secret'}
          </Button>
          {mayRotate && (
            <Button size="xs" variant="light" color="red" onClick={rotate}>
              Rotate secret
            </Button>
          )}
        </Group>
      </Group>
      {shown && (
        <>
          <ErrorAlert error={token.error} />
          {token.isPending && <Loader size="sm" aria-label="Loading the secret" />}
          {token.data && (
            <Code block mt="sm" data-testid="webhook-token" style={{ wordBreak: 'break-all', whiteSpace: 'pre-wrap' }}>
              {token.data}
            </Code>
          )}
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
  // The project's webhook_token is readable by the roles that may create webhooks (the API hides it from others).
  const mayReveal = mayCreate;
  const [form, setForm] = useState<{ url: string; events: string[] }>({ url: '', events: [] });
  const [editing, setEditing] = useState<Webhook | null>(null);
  const { busy, errorFor, formError, submit, setError } = useFormSubmit(FIELDS);
  const refresh = () => client.invalidateQueries({ queryKey: ['webhooks', base] });
  const shown = hooks.data?.data.find((h) => h.id === selected) ?? hooks.data?.data[0];

  const save = submit(async () => {
    if (editing) {
      // PUT replaces the configuration; `active` is sent as it is so an edit does not switch the webhook on.
      await api<Webhook>('PUT', `${base}/${editing.id}`, { target_url: form.url, events: form.events, active: editing.active });
      notifyDone('Webhook saved');
      setEditing(null);
    } else {
      const created = await api<Webhook>('POST', base, { target_url: form.url, events: form.events });
      notifyDone('Webhook created');
      setSelected(created.id);
    }
    setForm({ url: '', events: [] });
    await refresh();
  });

  const edit = (hook: Webhook) => {
    setEditing(hook);
    setForm({ url: hook.target_url, events: hook.events });
    setError(null);
  };

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
      title: `Delete the webhook to ${hook.target_url}?`,
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
                  <Group gap={4} wrap="nowrap" justify="flex-end">
                    {mayUpdate && (
                      <Button size="compact-xs" variant="default" aria-label={`Edit webhook ${hook.target_url}`} onClick={() => edit(hook)}>
                        Edit
                      </Button>
                    )}
                    {mayDelete && (
                      <ActionIcon variant="subtle" color="red" aria-label={`Delete webhook ${hook.target_url}`} onClick={() => remove(hook)}>
                        ✕
                      </ActionIcon>
                    )}
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </DataTable>
        )}
      </Card>
      {mayReveal && <SigningSecret projectId={session?.project.id ?? ''} mayRotate={can('POST', '/management/v1/projects/:projectId/webhook-token/rotate')} />}
      {shown && (
        <DeliveryLog
          key={shown.id}
          base={base}
          webhook={shown}
          canResend={can('POST', '/management/v1/projects/:projectId/webhooks/:webhookId/deliveries/:deliveryId/resend')}
          canTest={can('POST', '/management/v1/projects/:projectId/webhooks/:webhookId/test')}
        />
      )}
      {(editing ? mayUpdate : mayCreate) && (
        <FormCard
          title={editing ? `Edit webhook ${editing.target_url}` : 'New webhook'}
          onSubmit={save}
          error={formError}
          errorTitle={editing ? 'The webhook was not saved' : 'The webhook was not created'}
          submit={editing ? 'Save webhook' : 'Create webhook'}
          busy={busy}
        >
          {editing && (
            <Group justify="flex-end">
              <Button
                variant="subtle"
                size="xs"
                onClick={() => {
                  setEditing(null);
                  setForm({ url: '', events: [] });
                  setError(null);
                }}
              >
                Cancel editing
              </Button>
            </Group>
          )}
          <TextInput label="Target URL" placeholder="https://shop.example.com/punchcard-events" required value={form.url} onChange={(e) => setForm({ ...form, url: e.currentTarget.value })} error={errorFor('url')} />
          <MultiSelect label="Events" placeholder="Pick one or more" searchable data={[...SPEC_EVENT_KINDS]} value={form.events} onChange={(events) => setForm({ ...form, events })} error={errorFor('events')} />
        </FormCard>
      )}
    </Stack>
  );
}
