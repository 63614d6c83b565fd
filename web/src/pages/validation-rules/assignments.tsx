import { Button, Card, Group, Loader, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, withQuery } from '../../api/client.ts';
import { useCan } from '../../app/session.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { confirmThen, useFormSubmit } from '../../components/forms.tsx';
import { dateTime } from '../../components/format.ts';
import { notifyDone } from '../../components/notify.ts';
import type { Assignment, ListOf } from './types.ts';

// A rule's assignments: what it is assigned to (by name, linked where the console has a page for it),
// assigning it to one more object, and unassigning.

export const TARGET_TYPES: Record<string, string> = {
  campaign: 'Campaign',
  promotion_tier: 'Promotion tier',
  voucher: 'Voucher',
  earning_rule: 'Earning rule',
  reward_assignment: 'Reward assignment',
};

interface Target {
  label: string;
  href: string | null;
}

/** The name of what an assignment points at, and the console page showing it (when there is one). */
export function useTarget(assignment: Pick<Assignment, 'related_object_type' | 'related_object_id'>): Target {
  const { related_object_type: type, related_object_id: id } = assignment;
  const query = useQuery({
    queryKey: ['assignment-target', type, id],
    queryFn: async (): Promise<Target> => {
      if (type === 'campaign') {
        const campaign = await api<{ name: string }>('GET', `/v1/campaigns/${encodeURIComponent(id)}`);
        return { label: campaign.name, href: `/campaigns/${id}` };
      }
      if (type === 'voucher') {
        const voucher = await api<{ code: string }>('GET', `/v1/vouchers/${encodeURIComponent(id)}`);
        return { label: voucher.code, href: `/vouchers/${encodeURIComponent(voucher.code)}` };
      }
      if (type === 'promotion_tier') {
        const tier = await api<{ name: string; campaign_id: string; campaign?: { name?: string } }>('GET', `/v1/promotions/tiers/${encodeURIComponent(id)}`);
        return { label: `${tier.name}${tier.campaign?.name ? ` (${tier.campaign.name})` : ''}`, href: `/campaigns/${tier.campaign_id}` };
      }
      return { label: id, href: null };
    },
    staleTime: 60_000,
    retry: false,
  });
  return query.data ?? { label: id, href: null };
}

function TargetCell({ assignment }: { assignment: Assignment }) {
  const target = useTarget(assignment);
  return target.href ? <Link to={target.href}>{target.label}</Link> : <Text size="sm">{target.label}</Text>;
}

/** One line of the delete confirmation (rendered outside the router, so without a link). */
export function TargetLine({ assignment }: { assignment: Assignment }) {
  const target = useTarget(assignment);
  return (
    <li>
      {TARGET_TYPES[assignment.related_object_type] ?? assignment.related_object_type} {target.label}
    </li>
  );
}

export function useAssignments(ruleId: string) {
  return useQuery({
    queryKey: ['validation-rule-assignments', ruleId],
    // A rule has few assignments; the first 100 are shown (the count says when there are more).
    queryFn: () => api<ListOf<Assignment>>('GET', withQuery(`/v1/validation-rules/${encodeURIComponent(ruleId)}/assignments`, { limit: 100 })),
  });
}

function AssignForm({ ruleId }: { ruleId: string }) {
  const client = useQueryClient();
  const [type, setType] = useState('campaign');
  const [target, setTarget] = useState<string | null>('');
  const form = useFormSubmit({ target: 'related_object_id' });
  const campaigns = useQuery({
    queryKey: ['assign-campaigns'],
    queryFn: () => api<{ campaigns: Array<{ id: string; name: string }> }>('GET', withQuery('/v1/campaigns', { limit: 100, order: '-created_at' })),
    enabled: type === 'campaign',
  });
  const assign = form.submit(async () => {
    if (!target) throw new Error(type === 'campaign' ? 'Pick a campaign' : 'Enter what to assign the rule to');
    await api('POST', `/v1/validation-rules/${encodeURIComponent(ruleId)}/assignments`, { related_object_type: type, related_object_id: target });
    notifyDone('Rule assigned');
    setTarget('');
    await client.invalidateQueries({ queryKey: ['validation-rule-assignments', ruleId] });
    await client.invalidateQueries({ queryKey: ['validation-rule', ruleId] });
  });
  const placeholder: Record<string, string> = { voucher: 'Voucher code', promotion_tier: 'promo_…', earning_rule: 'ern_…', reward_assignment: 'rewa_…' };
  return (
    <form onSubmit={(e) => void assign(e)}>
      <Stack gap="xs">
        <Group align="flex-end" gap="xs" wrap="wrap">
          <Select
            label="Assign to"
            data={Object.entries(TARGET_TYPES).map(([value, label]) => ({ value, label }))}
            value={type}
            allowDeselect={false}
            onChange={(value) => {
              setType(value ?? 'campaign');
              setTarget('');
            }}
            w={180}
          />
          {type === 'campaign' ? (
            <Select
              label="Campaign"
              placeholder={campaigns.isPending ? 'Loading campaigns…' : 'Search by name'}
              searchable
              nothingFoundMessage="No campaign of that name"
              data={(campaigns.data?.campaigns ?? []).map((c) => ({ value: c.id, label: c.name }))}
              value={target || null}
              onChange={setTarget}
              error={form.errorFor('target')}
              miw={220}
              style={{ flex: 1 }}
            />
          ) : (
            <TextInput
              label={TARGET_TYPES[type]}
              placeholder={placeholder[type]}
              value={target ?? ''}
              onChange={(e) => setTarget(e.currentTarget.value)}
              error={form.errorFor('target')}
              miw={200}
              style={{ flex: 1 }}
            />
          )}
          <Button type="submit" loading={form.busy}>
            Assign
          </Button>
        </Group>
        {form.formError !== null && <ErrorAlert error={form.formError} title="The rule was not assigned" />}
      </Stack>
    </form>
  );
}

export function AssignmentsCard({ ruleId }: { ruleId: string }) {
  const can = useCan();
  const client = useQueryClient();
  const assignments = useAssignments(ruleId);
  const canUnassign = can('DELETE', '/v1/validation-rules/:validationRuleId/assignments/:assignmentId');
  const unassign = (assignment: Assignment) =>
    confirmThen({
      title: 'Unassign the rule?',
      body: <TargetLine assignment={assignment} />,
      confirm: 'Unassign',
      done: 'Rule unassigned',
      failed: 'The rule was not unassigned',
      action: async () => {
        await api('DELETE', `/v1/validation-rules/${encodeURIComponent(ruleId)}/assignments/${assignment.id}`);
        await client.invalidateQueries({ queryKey: ['validation-rule-assignments', ruleId] });
        await client.invalidateQueries({ queryKey: ['validation-rule', ruleId] });
      },
    });
  return (
    <Card withBorder data-testid="assignments">
      <Stack>
        <Title order={2} size="h5">
          Assigned to
        </Title>
        {assignments.isPending && <Loader size="sm" aria-label="Loading assignments" />}
        <ErrorAlert error={assignments.error} title="The assignments could not be read" />
        {assignments.data &&
          (assignments.data.total === 0 ? (
            <Text size="sm" c="dimmed">
              Not assigned yet: the rule checks nothing until it is assigned.
            </Text>
          ) : (
            <DataTable columns={['Type', 'Assigned to', 'Since', '']} minWidth={520}>
              {assignments.data.data.map((a) => (
                <Table.Tr key={a.id} data-testid={`assignment-${a.id}`}>
                  <Table.Td>{TARGET_TYPES[a.related_object_type] ?? a.related_object_type}</Table.Td>
                  <Table.Td>
                    <TargetCell assignment={a} />
                  </Table.Td>
                  <Table.Td>{dateTime(a.created_at)}</Table.Td>
                  <Table.Td>
                    {canUnassign && (
                      <Button size="compact-xs" variant="subtle" color="red" onClick={() => unassign(a)}>
                        Unassign
                      </Button>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </DataTable>
          ))}
        {can('POST', '/v1/validation-rules/:validationRuleId/assignments') && <AssignForm ruleId={ruleId} />}
      </Stack>
    </Card>
  );
}
