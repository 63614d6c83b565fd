import { Badge, Button, Code, CopyButton, Group, Loader, Stack, Table, Text, TextInput, Textarea } from '@mantine/core';
import { modals } from '@mantine/modals';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client.ts';
import { SESSION_KEY, useCan, useSession } from '../../app/session.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { confirmThen, FormCard, useFormSubmit } from '../../components/forms.tsx';
import { dateTime } from '../../components/format.ts';
import { notifyDone } from '../../components/notify.ts';
import { PageHeader } from '../../components/PageHeader.tsx';

// Every project of the organisation, for its owner (the only console user the server lets list, create and
// delete projects; the navigation shows this screen to whoever may list them). A new project makes its
// creator its ADMIN, so it joins the header's project switcher at once; a project is deleted from another
// one, never from inside it. Renaming and the rest of a project's settings are in Settings, while working
// in that project.

interface Project {
  id: string;
  name: string;
  description: string;
  timezone: string;
  currency: string;
  /** The server's default project: the server keeps it, so it is offered no Delete. */
  is_default: boolean;
  created_at: string;
}

interface KeyPair {
  app_id: string;
  app_token: string;
}

type CreatedProject = Project & { server_side_key: KeyPair; client_side_key: KeyPair };

const PROJECTS_KEY = ['projects'] as const;

function Secret({ label, value }: { label: string; value: string }) {
  return (
    <Stack gap={2}>
      <Text size="xs" c="dimmed">{label}</Text>
      <Group gap="xs" wrap="nowrap">
        <Code style={{ overflowX: 'auto', whiteSpace: 'nowrap', minWidth: 0 }}>{value}</Code>
        <CopyButton value={value}>{({ copied, copy }) => <Button size="compact-xs" onClick={copy} style={{ flexShrink: 0 }}>{copied ? 'Copied' : 'Copy'}</Button>}</CopyButton>
      </Group>
    </Stack>
  );
}

/** The new project's keys: the API answers their secrets this once (Settings can only rotate them later). */
function NewKeys({ project }: { project: CreatedProject }) {
  return (
    <Stack gap="sm" data-testid="new-project-keys">
      <Text size="sm">
        You are ADMIN of {project.name}; switch to it with the project menu at the top. Copy its API keys now: their secrets are stored hashed and
        will not be shown again (Settings → API keys can rotate them).
      </Text>
      <Secret label="Server side: X-App-Id" value={project.server_side_key.app_id} />
      <Secret label="Server side: X-App-Token" value={project.server_side_key.app_token} />
      <Secret label="Client side: X-Client-Application-Id" value={project.client_side_key.app_id} />
      <Secret label="Client side: X-Client-Token" value={project.client_side_key.app_token} />
      <Group justify="flex-end"><Button onClick={() => modals.closeAll()}>I have copied them</Button></Group>
    </Stack>
  );
}

function NewProject({ timezone, currency }: { timezone: string; currency: string }) {
  const client = useQueryClient();
  const empty = { name: '', timezone, currency, description: '' };
  const [form, setForm] = useState(empty);
  const { submit, busy, errorFor, formError } = useFormSubmit({ name: 'name', timezone: 'timezone', currency: 'currency', description: 'description' });
  const create = submit(async () => {
    const created = await api<CreatedProject>('POST', '/management/v1/projects', {
      name: form.name.trim(),
      timezone: form.timezone.trim(),
      currency: form.currency.trim().toUpperCase(),
      case_sensitive_codes: false,
      ...(form.description.trim() === '' ? {} : { description: form.description.trim() }),
    });
    setForm(empty);
    notifyDone(`Project ${created.name} created`);
    modals.open({ title: `Project ${created.name} created`, closeOnClickOutside: false, children: <NewKeys project={created} /> });
    // The session's project list feeds the header's switcher.
    await Promise.all([client.invalidateQueries({ queryKey: PROJECTS_KEY }), client.invalidateQueries({ queryKey: SESSION_KEY })]);
  });
  return (
    <FormCard title="New project" onSubmit={create} error={formError} errorTitle="Project not created" submit="Create project" busy={busy}>
      <Group align="flex-start" wrap="wrap">
        <TextInput label="Name" required w={240} value={form.name} onChange={(e) => setForm({ ...form, name: e.currentTarget.value })} error={errorFor('name')} />
        <TextInput label="Time zone" required w={200} description="IANA name or GMT±HH:MM" value={form.timezone} onChange={(e) => setForm({ ...form, timezone: e.currentTarget.value })} error={errorFor('timezone')} />
        <TextInput label="Currency" required w={110} description="ISO 4217" maxLength={3} value={form.currency} onChange={(e) => setForm({ ...form, currency: e.currentTarget.value })} error={errorFor('currency')} />
      </Group>
      <Textarea label="Description" autosize minRows={1} value={form.description} onChange={(e) => setForm({ ...form, description: e.currentTarget.value })} error={errorFor('description')} />
      <Text size="xs" c="dimmed">You become the new project's ADMIN. Voucher codes in it are not case-sensitive; the rest of its settings are in Settings once you work in it.</Text>
    </FormCard>
  );
}

export function ProjectsPage() {
  const client = useQueryClient();
  const { data: session } = useSession();
  const can = useCan();
  const projects = useQuery({ queryKey: PROJECTS_KEY, queryFn: () => api<{ data: Project[] }>('GET', '/management/v1/projects') });
  if (!session) return null;
  const mayCreate = can('POST', '/management/v1/projects');
  const mayDelete = can('DELETE', '/management/v1/projects/:projectId');
  const roleIn = new Map(session.projects.map((p) => [p.id, p.role]));
  const current = projects.data?.data.find((p) => p.id === session.project.id);

  const remove = (project: Project) =>
    confirmThen({
      title: `Delete project ${project.name}?`,
      body: (
        <Stack gap="xs">
          <Text size="sm">
            Project <b>{project.name}</b> ({project.id}) is deleted for good. Its server and client API keys and OAuth tokens stop working at once,
            everyone working in it is signed out of it, and its campaigns, vouchers, customers, loyalty cards, orders and settings can no longer
            be reached from the console or the API.
          </Text>
          <Text size="sm">This cannot be undone.</Text>
        </Stack>
      ),
      confirm: `Delete ${project.name}`,
      cancel: 'Keep it',
      action: async () => {
        await api('DELETE', `/management/v1/projects/${project.id}`);
        await Promise.all([client.invalidateQueries({ queryKey: PROJECTS_KEY }), client.invalidateQueries({ queryKey: SESSION_KEY })]);
      },
      done: `Project ${project.name} deleted`,
      failed: `Project ${project.name} not deleted`,
    });

  return (
    <Stack>
      <PageHeader
        title="Projects"
        description="Every project of the organisation. As its owner you create and delete projects here; a project's name, time zone and other settings are in Settings while you work in it."
      />
      <ErrorAlert error={projects.error} />
      {projects.isPending && <Loader aria-label="Loading projects" />}
      {projects.data && (
        <DataTable columns={mayDelete ? ['Project', 'Id', 'Time zone', 'Created', 'Your role', ''] : ['Project', 'Id', 'Time zone', 'Created', 'Your role']} minWidth={760}>
          {projects.data.data.map((p) => (
            <Table.Tr key={p.id} data-testid={`project-${p.id}`}>
              <Table.Td>
                <Stack gap={0} style={{ overflowWrap: 'anywhere' }}>
                  <Text size="sm" fw={500}>{p.name}</Text>
                  {p.description !== '' && <Text size="xs" c="dimmed">{p.description}</Text>}
                </Stack>
              </Table.Td>
              <Table.Td><Code>{p.id}</Code></Table.Td>
              <Table.Td><Text size="sm">{p.timezone}</Text></Table.Td>
              <Table.Td><Text size="sm">{dateTime(p.created_at)}</Text></Table.Td>
              <Table.Td>
                {p.id === session.project.id ? (
                  <Badge variant="light" data-testid="project-role">{session.role} · working here</Badge>
                ) : roleIn.has(p.id) ? (
                  <Badge variant="outline" data-testid="project-role">{roleIn.get(p.id)}</Badge>
                ) : (
                  <Text size="xs" c="dimmed" data-testid="project-role">Not a member</Text>
                )}
              </Table.Td>
              {mayDelete && (
                <Table.Td>
                  {p.is_default && p.id !== session.project.id && (
                    <Text size="xs" c="dimmed" ta="right">
                      Kept: the server's default
                    </Text>
                  )}
                  {!p.is_default && p.id !== session.project.id && (
                    <Group justify="flex-end" wrap="nowrap">
                      <Button size="compact-xs" variant="subtle" color="red" aria-label={`Delete project ${p.name}`} onClick={() => remove(p)}>Delete</Button>
                    </Group>
                  )}
                </Table.Td>
              )}
            </Table.Tr>
          ))}
        </DataTable>
      )}
      {mayDelete && <Text size="xs" c="dimmed">The project you work in cannot be deleted from inside it: switch to another one first. The server's default project is kept.</Text>}
      {mayCreate && projects.data && <NewProject timezone={session.project.timezone} currency={current?.currency ?? 'EUR'} />}
    </Stack>
  );
}
