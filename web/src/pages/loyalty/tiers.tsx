import { ActionIcon, Button, Card, Group, NumberInput, Stack, Table, Text, TextInput } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, listOf, withQuery } from '../../api/client.ts';
import { useCan } from '../../app/session.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { confirmThen, FormCard, useFormSubmit } from '../../components/forms.tsx';
import { notifyDone } from '../../components/notify.ts';

// A program's tiers (GET /v1/loyalties/{id}/tiers): the points range of each, one form that adds a tier
// (POST, an array of one) or changes one (PUT: name and range), and delete. Overlapping ranges, and
// deleting a tier an earning rule triggers on, are refused by the API, whose message shows here. Members
// are placed again in the background after any change.

interface Tier {
  id: string;
  name: string;
  points: { from: number | null; to: number | null };
}

// Create names members `0.…` (an array), update plain ones; a single create's range clash names `points`.
const FIELDS = { name: '0.name', from: '0.points.from', to: '0.points.to', eName: 'name', ePoints: 'points' };
const EMPTY_FORM = { name: '', from: '' as number | string, to: '' as number | string };

export function TiersTab({ campaignId }: { campaignId: string }) {
  const client = useQueryClient();
  const can = useCan();
  const mayCreate = can('POST', '/v1/loyalties/:campaignId/tiers');
  const mayUpdate = can('PUT', '/v1/loyalties/:campaignId/tiers/:loyaltyTierId');
  const mayDelete = can('DELETE', '/v1/loyalties/:campaignId/tiers/:loyaltyTierId');
  const tiers = useQuery({
    queryKey: ['loyalty-tiers', campaignId],
    queryFn: async () => listOf<Tier>(await api('GET', withQuery(`/v1/loyalties/${campaignId}/tiers`, { limit: 100 }))),
  });
  const [form, setForm] = useState(EMPTY_FORM);
  const [editing, setEditing] = useState<Tier | null>(null);
  const { busy, errorFor, formError, submit, setError } = useFormSubmit(FIELDS);
  const refresh = () => client.invalidateQueries({ queryKey: ['loyalty-tiers', campaignId] });
  const points = () => ({ ...(form.from !== '' ? { from: Number(form.from) } : {}), ...(form.to !== '' ? { to: Number(form.to) } : {}) });

  const save = submit(async () => {
    if (editing) {
      await api('PUT', `/v1/loyalties/${campaignId}/tiers/${editing.id}`, { name: form.name, points: points() });
      notifyDone(`Tier “${form.name}” saved`);
      setEditing(null);
    } else {
      await api('POST', `/v1/loyalties/${campaignId}/tiers`, [{ name: form.name, points: points() }]);
      notifyDone(`Tier “${form.name}” added`);
    }
    setForm(EMPTY_FORM);
    await refresh();
  });

  const edit = (tier: Tier) => {
    setEditing(tier);
    setError(null);
    setForm({ name: tier.name, from: tier.points.from ?? '', to: tier.points.to ?? '' });
  };

  const cancelEdit = () => {
    setEditing(null);
    setError(null);
    setForm(EMPTY_FORM);
  };

  const remove = (tier: Tier) =>
    confirmThen({
      title: `Delete the tier “${tier.name}”?`,
      body: `Members holding it (${tier.points.from ?? 0} to ${tier.points.to ?? 'any'} points) are placed again by the other tiers, or hold none.`,
      confirm: 'Delete tier',
      action: async () => {
        await api('DELETE', `/v1/loyalties/${campaignId}/tiers/${tier.id}`);
        if (editing?.id === tier.id) cancelEdit();
        await refresh();
      },
      done: `Tier “${tier.name}” deleted`,
      failed: 'The tier was not deleted',
    });

  const actions = mayUpdate || mayDelete;
  return (
    <Stack>
      <Card withBorder>
        <ErrorAlert error={tiers.error} />
        {tiers.data && tiers.data.items.length === 0 && <Text c="dimmed">No tiers: every member is treated alike.</Text>}
        {tiers.data && tiers.data.items.length > 0 && (
          <DataTable columns={actions ? ['Tier', 'Points from', 'Points to', ''] : ['Tier', 'Points from', 'Points to']} minWidth={480}>
            {[...tiers.data.items]
              .sort((a, b) => (a.points.from ?? 0) - (b.points.from ?? 0))
              .map((tier) => (
                <Table.Tr key={tier.id} data-testid={`loyalty-tier-${tier.id}`}>
                  <Table.Td>{tier.name}</Table.Td>
                  <Table.Td>{tier.points.from ?? 0}</Table.Td>
                  <Table.Td>{tier.points.to ?? 'and more'}</Table.Td>
                  {actions && (
                    <Table.Td>
                      <Group gap={4} wrap="nowrap" justify="flex-end">
                        {mayUpdate && (
                          <Button size="compact-xs" variant="default" aria-label={`Edit ${tier.name}`} onClick={() => edit(tier)}>
                            Edit
                          </Button>
                        )}
                        {mayDelete && (
                          <ActionIcon variant="subtle" color="red" aria-label={`Delete ${tier.name}`} onClick={() => remove(tier)}>
                            ✕
                          </ActionIcon>
                        )}
                      </Group>
                    </Table.Td>
                  )}
                </Table.Tr>
              ))}
          </DataTable>
        )}
      </Card>
      {(editing ? mayUpdate : mayCreate) && (
        <FormCard
          title={editing ? `Edit tier “${editing.name}”` : 'New tier'}
          onSubmit={save}
          error={formError}
          errorTitle={editing ? 'The tier was not saved' : 'The tier was not added'}
          submit={editing ? 'Save tier' : 'Add tier'}
          busy={busy}
        >
          {editing && (
            <Group justify="flex-end">
              <Button variant="subtle" size="xs" onClick={cancelEdit}>
                Cancel editing
              </Button>
            </Group>
          )}
          <Group align="flex-start" wrap="wrap">
            <TextInput label="Tier name" required value={form.name} onChange={(e) => setForm({ ...form, name: e.currentTarget.value })} error={errorFor('eName') ?? errorFor('name')} w={220} />
            <NumberInput label="Points from" value={form.from} onChange={(from) => setForm({ ...form, from })} min={0} error={errorFor('ePoints') ?? errorFor('from')} w={140} />
            <NumberInput label="Points to" description="Empty: no upper bound" value={form.to} onChange={(to) => setForm({ ...form, to })} min={0} error={errorFor('to')} w={160} />
          </Group>
        </FormCard>
      )}
    </Stack>
  );
}
