import { Anchor, Badge, Button, Card, CopyButton, Group, Loader, Select, Stack, Table, Text, TextInput, Textarea, Title, Code } from '@mantine/core';
import { Link } from 'react-router';
import { modals } from '@mantine/modals';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client.ts';
import { fieldOfError, fieldMessageOf } from '../../api/field-errors.ts';
import { useCan, useSession } from '../../app/session.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { confirmThen } from '../../components/forms.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { notifyDone, notifyFailed } from '../../components/notify.ts';
import { dateTime } from '../../components/format.ts';

// Settings of the signed-in project through the management API: name, time zone and the origins its
// client-side keys may be used from; its API keys (ids; rotate, with the new secret shown once; ADMIN
// only); its users and their roles (invite, change, remove), each invited or active: an invited user may
// get a new invitation link, an active one a password reset link — never the other, which would be refused
// or pointless.

const ROLES = ['ADMIN', 'USER', 'VIEWER', 'MERCHANT'];

interface Project {
  id: string;
  name: string;
  description: string;
  timezone: string;
  currency: string;
  client_trusted_domains: string[];
  locale: string | null;
}

interface User {
  id: string;
  login: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  projects: Record<string, string>;
  is_owner: boolean;
  status: 'invited' | 'active';
}

/** The project's settings; read-only for a role that may not change them. */
function ProjectSettings({ projectId, mayEdit }: { projectId: string; mayEdit: boolean }) {
  const client = useQueryClient();
  const project = useQuery({ queryKey: ['project', projectId], queryFn: () => api<Project>('GET', `/management/v1/projects/${projectId}`) });
  const [draft, setDraft] = useState<{ name: string; timezone: string; locale: string; origins: string } | null>(null);
  const [error, setError] = useState<unknown>(null);
  if (project.isPending) return <Loader aria-label="Loading project" />;
  if (project.isError) return <ErrorAlert error={project.error} />;
  const p = project.data;
  const form = draft ?? { name: p.name, timezone: p.timezone, locale: p.locale ?? '', origins: p.client_trusted_domains.join('\n') };
  const field = fieldOfError(error, { name: 'name', timezone: 'timezone', locale: 'locale', origins: 'client_trusted_domains' });
  const variant = mayEdit ? 'default' : 'filled';
  const save = async (event: React.FormEvent) => {
    event.preventDefault();
    setError(null);
    try {
      await api('PUT', `/management/v1/projects/${projectId}`, {
        name: form.name,
        timezone: form.timezone,
        locale: form.locale.trim() === '' ? null : form.locale.trim(),
        client_trusted_domains: form.origins.split(/\s+/).filter((o) => o !== ''),
      });
      notifyDone('Project saved');
      setDraft(null);
      await client.invalidateQueries({ predicate: (q) => ['project', 'session', 'report'].includes(String(q.queryKey[0])) });
    } catch (e) {
      setError(e);
    }
  };
  return (
    <Card withBorder>
      <Title order={2} size="h4" mb="sm">Project</Title>
      <form onSubmit={(e) => void save(e)}>
        <Stack>
          <TextInput label="Name" readOnly={!mayEdit} variant={variant} value={form.name} onChange={(e) => setDraft({ ...form, name: e.currentTarget.value })} error={field === 'name' ? fieldMessageOf(error) : undefined} />
          <TextInput label="Time zone" readOnly={!mayEdit} variant={variant} description="IANA name (Europe/Warsaw) or GMT±HH:MM; every date the console shows, and the home page's days, follow it" value={form.timezone} onChange={(e) => setDraft({ ...form, timezone: e.currentTarget.value })} error={field === 'timezone' ? fieldMessageOf(error) : undefined} />
          <TextInput label="Language of dates and numbers" readOnly={!mayEdit} variant={variant} description="A language tag such as en-GB or de-DE; empty: each member's browser language" placeholder="Browser's language" value={form.locale} onChange={(e) => setDraft({ ...form, locale: e.currentTarget.value })} error={field === 'locale' ? fieldMessageOf(error) : undefined} />
          <Textarea
            label="Client-side origins"
            description="Web pages allowed to use the client-side keys, one origin per line (https://shop.example.com); none means no page may"
            autosize
            minRows={2}
            readOnly={!mayEdit}
            variant={variant}
            value={form.origins}
            onChange={(e) => setDraft({ ...form, origins: e.currentTarget.value })}
            error={field === 'origins' ? fieldMessageOf(error) : undefined}
          />
          <Text size="xs" c="dimmed">Project id {p.id} · currency {p.currency}</Text>
          {error !== null && field === null && <ErrorAlert error={error} />}
          {mayEdit && <Group><Button type="submit" disabled={draft === null}>Save</Button></Group>}
        </Stack>
      </form>
    </Card>
  );
}

interface ApiKey {
  id: string;
  app_id: string;
  kind: 'server' | 'client';
  name: string;
  created_at: string;
  fixed_by_environment: boolean;
}

const KEY_HEADERS = {
  server: ['X-App-Id', 'X-App-Token'],
  client: ['X-Client-Application-Id', 'X-Client-Token'],
} as const;

function NewSecret({ rotated }: { rotated: ApiKey & { app_token: string; replaces: string } }) {
  const [idHeader, tokenHeader] = KEY_HEADERS[rotated.kind];
  return (
    <Stack gap="xs" data-testid="new-api-key">
      <Text size="sm">Key {rotated.replaces} no longer works. Copy the new secret now: it is stored hashed and will not be shown again.</Text>
      <Text size="xs" c="dimmed">{idHeader}</Text>
      <Code data-testid="new-app-id">{rotated.app_id}</Code>
      <Text size="xs" c="dimmed">{tokenHeader}</Text>
      <Group gap="xs" wrap="nowrap">
        <Code data-testid="new-app-token" style={{ overflowX: 'auto', whiteSpace: 'nowrap' }}>{rotated.app_token}</Code>
        <CopyButton value={rotated.app_token}>{({ copied, copy }) => <Button size="compact-xs" onClick={copy}>{copied ? 'Copied' : 'Copy'}</Button>}</CopyButton>
      </Group>
      <Group justify="flex-end"><Button onClick={() => modals.closeAll()}>I have copied it</Button></Group>
    </Stack>
  );
}

function ApiKeys({ projectId }: { projectId: string }) {
  const client = useQueryClient();
  const mayRotate = useCan()('POST', '/management/v1/projects/:projectId/api-keys/:keyId/rotate');
  const keys = useQuery({ queryKey: ['api-keys', projectId], queryFn: () => api<{ data: ApiKey[] }>('GET', `/management/v1/projects/${projectId}/api-keys`) });
  const rotate = (key: ApiKey) =>
    confirmThen({
      title: `Rotate the ${key.kind}-side key ${key.app_id}?`,
      body: 'Requests signed with this key, and OAuth tokens issued to it, are refused from now on. A new key replaces it; its secret is shown once.',
      confirm: 'Rotate',
      cancel: 'Keep the key',
      action: async () => {
        const rotated = await api<ApiKey & { app_token: string; replaces: string }>('POST', `/management/v1/projects/${projectId}/api-keys/${key.id}/rotate`);
        modals.open({ title: `New ${rotated.kind}-side key`, closeOnClickOutside: false, children: <NewSecret rotated={rotated} /> });
        await client.invalidateQueries({ queryKey: ['api-keys', projectId] });
      },
      failed: 'Key not rotated',
    });
  return (
    <Card withBorder>
      <Title order={2} size="h4" mb="sm">API keys</Title>
      <Text size="sm" c="dimmed" mb="sm">Secrets are stored hashed and shown only when a key is issued; rotate a key to get a new secret.</Text>
      <ErrorAlert error={keys.error} />
      {keys.isPending && <Loader aria-label="Loading API keys" />}
      {keys.data && (
        <DataTable columns={['Key', 'Kind', 'Created', '']} minWidth={520}>
          {keys.data.data.map((k) => (
            <Table.Tr key={k.id} data-testid={`api-key-${k.kind}`}>
              <Table.Td>
                <Code data-testid="app-id">{k.app_id}</Code>
                <Text size="xs" c="dimmed">{k.name}</Text>
              </Table.Td>
              <Table.Td><Text size="sm">{k.kind === 'server' ? 'Server side' : 'Client side'}</Text></Table.Td>
              <Table.Td><Text size="sm">{dateTime(k.created_at)}</Text></Table.Td>
              <Table.Td>
                {k.fixed_by_environment ? (
                  <Text size="xs" c="dimmed">Set by the server's environment; change it there</Text>
                ) : (
                  mayRotate && <Button size="compact-xs" variant="light" color="red" aria-label={`Rotate ${k.kind}-side key`} onClick={() => rotate(k)}>Rotate</Button>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </DataTable>
      )}
    </Card>
  );
}

function Team({ projectId, me }: { projectId: string; me: string }) {
  const client = useQueryClient();
  const can = useCan();
  const mayChangeRole = can('PUT', '/management/v1/projects/:projectId/users/:userId');
  const mayIssueLink = can('POST', '/management/v1/projects/:projectId/users/:userId/invitation-link');
  const mayIssueReset = can('POST', '/management/v1/projects/:projectId/users/:userId/password-reset-link');
  const mayRemove = can('DELETE', '/management/v1/projects/:projectId/users/:userId');
  // Inviting also hands out the new user's invitation link.
  const mayInvite = can('POST', '/management/v1/projects/users/invite') && mayIssueLink;
  const users = useQuery({ queryKey: ['users', projectId], queryFn: () => api<{ data: User[] }>('GET', `/management/v1/projects/${projectId}/users`) });
  const [invite, setInvite] = useState({ email: '', first_name: '', role: 'USER' });
  const [inviteError, setInviteError] = useState<unknown>(null);
  const [link, setLink] = useState<{ kind: 'invitation' | 'reset'; email: string; url: string; expires_at: string } | null>(null);
  const refresh = () => client.invalidateQueries({ queryKey: ['users', projectId] });
  const inviteField = fieldOfError(inviteError, { email: 'email', first_name: 'first_name', role: 'projects' });

  const issueLink = async (user: string, email: string) => {
    try {
      const answer = await api<{ url: string; expires_at: string }>('POST', `/management/v1/projects/${projectId}/users/${encodeURIComponent(user)}/invitation-link`);
      setLink({ kind: 'invitation', email, ...answer });
    } catch (e) {
      notifyFailed('No invitation link', e);
    }
  };
  const issueReset = (user: User) =>
    confirmThen({
      title: `A password reset link for ${user.email}?`,
      body: 'The link sets a new password once, within 24 hours; using it signs out every session of this account. An earlier reset link stops working.',
      confirm: 'Create link',
      cancel: 'Cancel',
      danger: false,
      action: async () => {
        const answer = await api<{ url: string; expires_at: string }>('POST', `/management/v1/projects/${projectId}/users/${user.id}/password-reset-link`);
        setLink({ kind: 'reset', email: user.email, ...answer });
      },
      failed: 'No reset link',
    });
  const submitInvite = async (event: React.FormEvent) => {
    event.preventDefault();
    setInviteError(null);
    try {
      await api('POST', '/management/v1/projects/users/invite', { email: invite.email, first_name: invite.first_name || null, projects: { [projectId]: invite.role } });
      await issueLink(invite.email, invite.email);
      setInvite({ email: '', first_name: '', role: 'USER' });
      await refresh();
    } catch (e) {
      setInviteError(e);
    }
  };
  const changeRole = async (user: User, role: string | null) => {
    if (!role) return;
    try {
      await api('PUT', `/management/v1/projects/${projectId}/users/${user.id}`, { role });
      notifyDone(`${user.email} is now ${role}`);
      await refresh();
    } catch (e) {
      notifyFailed('Role not changed', e);
      await refresh();
    }
  };
  const remove = (user: User) =>
    confirmThen({
      title: `Remove ${user.email} from this project?`,
      body: 'Their console sessions in this project end at once.',
      confirm: 'Remove',
      cancel: 'Keep',
      action: async () => {
        await api('DELETE', `/management/v1/projects/${projectId}/users/${user.id}`);
        await refresh();
      },
      done: `${user.email} removed`,
      failed: 'Not removed',
    });

  return (
    <Card withBorder>
      <Title order={2} size="h4" mb="sm">Users and roles</Title>
      <ErrorAlert error={users.error} />
      {users.data && (
        <DataTable columns={mayIssueLink || mayIssueReset || mayRemove ? ['User', 'Status', 'Role', ''] : ['User', 'Status', 'Role']} minWidth={640}>
          {users.data.data.map((u) => (
            <Table.Tr key={u.id} data-testid={`user-${u.email}`}>
              <Table.Td>
                {/* One block, so a phone's card shows the name under the e-mail rather than squeezed beside it. */}
                <Stack gap={0} style={{ overflowWrap: 'anywhere' }}>
                  <Text size="sm">{u.email}{u.is_owner ? ' (owner)' : ''}{u.id === me ? ' (you)' : ''}</Text>
                  <Text size="xs" c="dimmed">{[u.first_name, u.last_name].filter(Boolean).join(' ')}</Text>
                </Stack>
              </Table.Td>
              <Table.Td>
                <Badge variant="light" color={u.status === 'active' ? 'green' : 'yellow'} data-testid="user-status">
                  {u.status === 'active' ? 'Active' : 'Invited'}
                </Badge>
              </Table.Td>
              <Table.Td>
                {mayChangeRole ? (
                  <Select aria-label={`Role of ${u.email}`} data={ROLES} value={u.projects[projectId] ?? null} onChange={(role) => void changeRole(u, role)} allowDeselect={false} w={130} size="xs" />
                ) : (
                  <Text size="sm" data-testid={`role-of-${u.email}`}>{u.projects[projectId]}</Text>
                )}
              </Table.Td>
              {(mayIssueLink || mayIssueReset || mayRemove) && (
                <Table.Td>
                  <Group gap="xs" justify="flex-end" wrap="nowrap">
                    {mayIssueLink && u.status === 'invited' && <Button size="compact-xs" variant="subtle" onClick={() => void issueLink(u.id, u.email)}>Invitation link</Button>}
                    {mayIssueReset && u.status === 'active' && u.id !== me && <Button size="compact-xs" variant="subtle" onClick={() => issueReset(u)}>Reset link</Button>}
                    {mayRemove && <Button size="compact-xs" variant="subtle" color="red" onClick={() => remove(u)}>Remove</Button>}
                  </Group>
                </Table.Td>
              )}
            </Table.Tr>
          ))}
        </DataTable>
      )}
      {link && (
        <Stack gap={4} my="sm" data-testid={link.kind === 'invitation' ? 'invitation-link' : 'reset-link'}>
          <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
            {link.kind === 'invitation' ? 'One-time invitation link' : 'One-time password reset link'} for {link.email} (until {dateTime(link.expires_at)}); Punchcard sends no e-mail, so hand it over yourself:
          </Text>
          <Group gap="xs" wrap="nowrap">
            {/* The link scrolls within its line; the Copy button keeps its room at a phone's width. */}
            <Code style={{ overflowX: 'auto', whiteSpace: 'nowrap', minWidth: 0 }}>{link.url}</Code>
            <CopyButton value={link.url}>{({ copied, copy }) => <Button size="compact-xs" onClick={copy} style={{ flexShrink: 0 }}>{copied ? 'Copied' : 'Copy'}</Button>}</CopyButton>
          </Group>
        </Stack>
      )}
      {!mayInvite && !mayChangeRole && <Text size="sm" c="dimmed" mt="sm">Only an ADMIN invites users and changes their roles.</Text>}
      {mayInvite && <form onSubmit={(e) => void submitInvite(e)}>
        <Group align="flex-start" mt="md" wrap="wrap">
          <TextInput label="Invite by e-mail" type="email" required value={invite.email} onChange={(e) => setInvite({ ...invite, email: e.currentTarget.value })} error={inviteField === 'email' ? fieldMessageOf(inviteError) : undefined} w={240} />
          <TextInput label="First name" value={invite.first_name} onChange={(e) => setInvite({ ...invite, first_name: e.currentTarget.value })} w={160} />
          <Select label="Role" data={ROLES} value={invite.role} onChange={(role) => setInvite({ ...invite, role: role ?? 'USER' })} allowDeselect={false} w={130} error={inviteField === 'role' ? fieldMessageOf(inviteError) : undefined} />
          <Button type="submit" mt={24}>Invite</Button>
        </Group>
        {inviteError !== null && inviteField === null && <ErrorAlert error={inviteError} />}
      </form>}
    </Card>
  );
}

export function SettingsPage() {
  const { data: session } = useSession();
  const can = useCan();
  if (!session) return null;
  return (
    <Stack>
      <PageHeader
        title="Settings"
        description={`Project ${session.project.name}; your role here is ${session.role}.`}
        actions={<Anchor component={Link} to="/account" size="sm">Your account and password</Anchor>}
      />
      <ProjectSettings projectId={session.project.id} mayEdit={can('PUT', '/management/v1/projects/:projectId')} />
      {can('GET', '/management/v1/projects/:projectId/api-keys') && <ApiKeys projectId={session.project.id} />}
      <Team projectId={session.project.id} me={session.user.id} />
    </Stack>
  );
}
