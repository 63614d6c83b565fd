import { Button, Card, Group, Loader, MultiSelect, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client.ts';
import { useCan, useSession } from '../../app/session.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { confirmThen, FormCard, useFormSubmit } from '../../components/forms.tsx';
import { notifyDone } from '../../components/notify.ts';
import { PageHeader } from '../../components/PageHeader.tsx';

// The consents customers can grant or withdraw (marketing e-mails, newsletters…), and the groups that
// show several together, defined through the management API. Deleting a consent also deletes every
// customer's answer to it, which the confirmation says.

interface Consent {
  id: string;
  name: string;
  description: string | null;
  category: string | null;
}

interface ConsentGroup {
  id: string;
  name: string;
  description: string | null;
  consents: string[];
}

const ROUTE = '/management/v1/projects/:projectId';

function useBase(): string {
  const session = useSession();
  return `/management/v1/projects/${session.data?.project.id ?? ''}`;
}

function ConsentForm({ editing, onDone }: { editing: Consent | null; onDone: () => void }) {
  const client = useQueryClient();
  const base = useBase();
  const [form, setForm] = useState({ name: editing?.name ?? '', category: editing?.category ?? '', description: editing?.description ?? '' });
  const submit = useFormSubmit({ name: 'name', category: 'category', description: 'description' });
  const save = submit.submit(async () => {
    const body = { name: form.name, category: form.category.trim() || null, description: form.description.trim() || null };
    const saved = editing ? await api<Consent>('PUT', `${base}/consents/${editing.id}`, body) : await api<Consent>('POST', `${base}/consents`, body);
    notifyDone(editing ? `Consent ${saved.name} saved` : `Consent ${saved.name} created`);
    setForm({ name: '', category: '', description: '' });
    await client.invalidateQueries({ queryKey: ['consents'] });
    onDone();
  });
  return (
    <FormCard title={editing ? `Edit consent ${editing.name}` : 'New consent'} onSubmit={save} error={submit.formError} errorTitle="The consent was not saved" submit={editing ? 'Save consent' : 'Create consent'} busy={submit.busy}>
      <Group grow align="flex-start" wrap="wrap">
        <TextInput label="Consent name" required value={form.name} onChange={(e) => setForm({ ...form, name: e.currentTarget.value })} error={submit.errorFor('name')} miw={200} />
        <TextInput label="Category" placeholder="e.g. marketing" value={form.category} onChange={(e) => setForm({ ...form, category: e.currentTarget.value })} error={submit.errorFor('category')} miw={160} />
      </Group>
      <TextInput label="Description" value={form.description} onChange={(e) => setForm({ ...form, description: e.currentTarget.value })} error={submit.errorFor('description')} />
      {editing && (
        <Group>
          <Button variant="default" size="xs" onClick={onDone}>
            Cancel editing
          </Button>
        </Group>
      )}
    </FormCard>
  );
}

function GroupForm({ editing, consents, onDone }: { editing: ConsentGroup | null; consents: Consent[]; onDone: () => void }) {
  const client = useQueryClient();
  const base = useBase();
  const [form, setForm] = useState({ name: editing?.name ?? '', description: editing?.description ?? '', consents: editing?.consents ?? [] });
  const submit = useFormSubmit({ name: 'name', description: 'description', consents: 'consents' });
  const save = submit.submit(async () => {
    const body = { name: form.name, description: form.description.trim() || null, consents: form.consents };
    const saved = editing ? await api<ConsentGroup>('PUT', `${base}/consent-groups/${editing.id}`, body) : await api<ConsentGroup>('POST', `${base}/consent-groups`, body);
    notifyDone(editing ? `Group ${saved.name} saved` : `Group ${saved.name} created`);
    setForm({ name: '', description: '', consents: [] });
    await client.invalidateQueries({ queryKey: ['consent-groups'] });
    onDone();
  });
  return (
    <FormCard title={editing ? `Edit group ${editing.name}` : 'New consent group'} onSubmit={save} error={submit.formError} errorTitle="The group was not saved" submit={editing ? 'Save group' : 'Create group'} busy={submit.busy}>
      <TextInput label="Group name" required value={form.name} onChange={(e) => setForm({ ...form, name: e.currentTarget.value })} error={submit.errorFor('name')} />
      <MultiSelect
        label="Consents in the group (in display order)"
        data={consents.map((c) => ({ value: c.id, label: c.name }))}
        value={form.consents}
        onChange={(value) => setForm({ ...form, consents: value })}
        searchable
        error={submit.errorFor('consents')}
      />
      <TextInput label="Group description" value={form.description} onChange={(e) => setForm({ ...form, description: e.currentTarget.value })} error={submit.errorFor('description')} />
      {editing && (
        <Group>
          <Button variant="default" size="xs" onClick={onDone}>
            Cancel editing
          </Button>
        </Group>
      )}
    </FormCard>
  );
}

export function ConsentsPage() {
  const can = useCan();
  const client = useQueryClient();
  const base = useBase();
  const [editingConsent, setEditingConsent] = useState<Consent | null>(null);
  const [editingGroup, setEditingGroup] = useState<ConsentGroup | null>(null);
  const consents = useQuery({ queryKey: ['consents'], queryFn: () => api<{ data: Consent[] }>('GET', `${base}/consents`) });
  const groups = useQuery({ queryKey: ['consent-groups'], queryFn: () => api<{ data: ConsentGroup[] }>('GET', `${base}/consent-groups`) });
  const nameOf = (id: string) => consents.data?.data.find((c) => c.id === id)?.name ?? id;
  const canWrite = can('POST', `${ROUTE}/consents`);

  const removeConsent = (consent: Consent) =>
    confirmThen({
      title: `Delete consent ${consent.name}?`,
      body: "Every customer's answer to it is deleted too, and it leaves the groups it is in. This cannot be undone.",
      confirm: 'Delete consent',
      done: `Consent ${consent.name} deleted`,
      failed: 'The consent was not deleted',
      action: async () => {
        await api('DELETE', `${base}/consents/${consent.id}`);
        await client.invalidateQueries({ queryKey: ['consents'] });
        await client.invalidateQueries({ queryKey: ['consent-groups'] });
      },
    });
  const removeGroup = (group: ConsentGroup) =>
    confirmThen({
      title: `Delete group ${group.name}?`,
      body: 'Its consents stay.',
      confirm: 'Delete group',
      done: `Group ${group.name} deleted`,
      failed: 'The group was not deleted',
      action: async () => {
        await api('DELETE', `${base}/consent-groups/${group.id}`);
        await client.invalidateQueries({ queryKey: ['consent-groups'] });
      },
    });

  return (
    <>
      <PageHeader title="Consents" description="What customers may opt in to or out of, and the groups shown together." />
      <Stack>
        <Card withBorder>
          <Title order={2} size="h5" mb="sm">
            Consents
          </Title>
          {consents.isPending && <Loader size="sm" aria-label="Loading consents" />}
          <ErrorAlert error={consents.error} title="The consents could not be read" />
          {consents.data &&
            (consents.data.data.length === 0 ? (
              <Text size="sm" c="dimmed">
                No consents yet.
              </Text>
            ) : (
              <DataTable columns={['Name', 'Category', 'Description', '']} minWidth={600}>
                {consents.data.data.map((c) => (
                  <Table.Tr key={c.id} data-testid={`consent-${c.id}`}>
                    <Table.Td>{c.name}</Table.Td>
                    <Table.Td>{c.category ?? '—'}</Table.Td>
                    <Table.Td>{c.description ?? '—'}</Table.Td>
                    <Table.Td>
                      {canWrite && (
                        <Group gap={4} justify="flex-end" wrap="nowrap">
                          <Button size="compact-xs" variant="subtle" aria-label={`Edit consent ${c.name}`} onClick={() => setEditingConsent(c)}>
                            Edit
                          </Button>
                          <Button size="compact-xs" variant="subtle" color="red" aria-label={`Delete consent ${c.name}`} onClick={() => removeConsent(c)}>
                            Delete
                          </Button>
                        </Group>
                      )}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </DataTable>
            ))}
        </Card>
        {canWrite && <ConsentForm key={editingConsent?.id ?? 'new-consent'} editing={editingConsent} onDone={() => setEditingConsent(null)} />}
        <Card withBorder>
          <Title order={2} size="h5" mb="sm">
            Consent groups
          </Title>
          {groups.isPending && <Loader size="sm" aria-label="Loading groups" />}
          <ErrorAlert error={groups.error} title="The groups could not be read" />
          {groups.data &&
            (groups.data.data.length === 0 ? (
              <Text size="sm" c="dimmed">
                No groups yet.
              </Text>
            ) : (
              <DataTable columns={['Name', 'Consents', 'Description', '']} minWidth={600}>
                {groups.data.data.map((g) => (
                  <Table.Tr key={g.id} data-testid={`consent-group-${g.id}`}>
                    <Table.Td>{g.name}</Table.Td>
                    <Table.Td>{g.consents.map(nameOf).join(', ') || '—'}</Table.Td>
                    <Table.Td>{g.description ?? '—'}</Table.Td>
                    <Table.Td>
                      {canWrite && (
                        <Group gap={4} justify="flex-end" wrap="nowrap">
                          <Button size="compact-xs" variant="subtle" aria-label={`Edit group ${g.name}`} onClick={() => setEditingGroup(g)}>
                            Edit
                          </Button>
                          <Button size="compact-xs" variant="subtle" color="red" aria-label={`Delete group ${g.name}`} onClick={() => removeGroup(g)}>
                            Delete
                          </Button>
                        </Group>
                      )}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </DataTable>
            ))}
        </Card>
        {canWrite && <GroupForm key={editingGroup?.id ?? 'new-group'} editing={editingGroup} consents={consents.data?.data ?? []} onDone={() => setEditingGroup(null)} />}
      </Stack>
    </>
  );
}
