import { Card, Group, NumberInput, Stack, Table, Text, TextInput } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, listOf, withQuery } from '../../api/client.ts';
import { useCan } from '../../app/session.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { FormCard, useFormSubmit } from '../../components/forms.tsx';
import { notifyDone } from '../../components/notify.ts';

// A program's tiers (GET /v1/loyalties/{id}/tiers): the points range of each, and a form that adds one
// (POST, an array of one). Overlapping ranges and the like are refused by the API, whose message shows here.

interface Tier {
  id: string;
  name: string;
  points: { from: number | null; to: number | null };
}

const FIELDS = { name: '0.name', from: '0.points.from', to: '0.points.to' };

export function TiersTab({ campaignId }: { campaignId: string }) {
  const client = useQueryClient();
  const can = useCan();
  const tiers = useQuery({
    queryKey: ['loyalty-tiers', campaignId],
    queryFn: async () => listOf<Tier>(await api('GET', withQuery(`/v1/loyalties/${campaignId}/tiers`, { limit: 100 }))),
  });
  const [form, setForm] = useState({ name: '', from: '' as number | string, to: '' as number | string });
  const { busy, errorFor, formError, submit } = useFormSubmit(FIELDS);

  const create = submit(async () => {
    await api('POST', `/v1/loyalties/${campaignId}/tiers`, [
      { name: form.name, points: { ...(form.from !== '' ? { from: Number(form.from) } : {}), ...(form.to !== '' ? { to: Number(form.to) } : {}) } },
    ]);
    notifyDone(`Tier “${form.name}” added`);
    setForm({ name: '', from: '', to: '' });
    await client.invalidateQueries({ queryKey: ['loyalty-tiers', campaignId] });
  });

  return (
    <Stack>
      <Card withBorder>
        <ErrorAlert error={tiers.error} />
        {tiers.data && tiers.data.items.length === 0 && <Text c="dimmed">No tiers: every member is treated alike.</Text>}
        {tiers.data && tiers.data.items.length > 0 && (
          <DataTable columns={['Tier', 'Points from', 'Points to']} minWidth={420}>
            {[...tiers.data.items]
              .sort((a, b) => (a.points.from ?? 0) - (b.points.from ?? 0))
              .map((tier) => (
                <Table.Tr key={tier.id} data-testid={`loyalty-tier-${tier.id}`}>
                  <Table.Td>{tier.name}</Table.Td>
                  <Table.Td>{tier.points.from ?? 0}</Table.Td>
                  <Table.Td>{tier.points.to ?? 'and more'}</Table.Td>
                </Table.Tr>
              ))}
          </DataTable>
        )}
      </Card>
      {can('POST', '/v1/loyalties/:campaignId/tiers') && (
      <FormCard title="New tier" onSubmit={create} error={formError} errorTitle="The tier was not added" submit="Add tier" busy={busy}>
        <Group align="flex-start" wrap="wrap">
          <TextInput label="Tier name" required value={form.name} onChange={(e) => setForm({ ...form, name: e.currentTarget.value })} error={errorFor('name')} w={220} />
          <NumberInput label="Points from" value={form.from} onChange={(from) => setForm({ ...form, from })} min={0} error={errorFor('from')} w={140} />
          <NumberInput label="Points to" description="Empty: no upper bound" value={form.to} onChange={(to) => setForm({ ...form, to })} min={0} error={errorFor('to')} w={160} />
        </Group>
      </FormCard>
      )}
    </Stack>
  );
}
