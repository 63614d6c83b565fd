import { ActionIcon, Badge, Button, Card, Group, NumberInput, SegmentedControl, Select, Stack, Table, Text, TextInput } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, listOf, withQuery } from '../../api/client.ts';
import { useCan } from '../../app/session.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { confirmThen, FormCard, useFormSubmit } from '../../components/forms.tsx';
import { money } from '../../components/format.ts';
import { notifyDone, notifyFailed } from '../../components/notify.ts';

// What earns points in a program: the rules (GET /v1/loyalties/{id}/earning-rules), one form that creates
// or edits a rule (PUT: name, points, validation rule, dates; the event and its segment are fixed once
// created), for the two common shapes (a fixed number of points per event, or points for every amount
// spent), duplicate (created switched off), enable/disable and delete. The API's error shows next to the
// input whose member it names.

export interface EarningRule {
  id: string;
  event: string;
  active: boolean;
  source: { banner: string | null };
  loyalty: { type: string; points?: number; calculation_type?: string; order?: { amount?: { every: number; points: number } } };
  validation_rule_id: string | null;
  segment: { id: string } | null;
  custom_event: { schema_id: string } | null;
  loyalty_tier: { id: string } | null;
  pending_points: { period_type: 'DAY'; period_value: number } | null;
  start_date: string | null;
  expiration_date: string | null;
  metadata: Record<string, unknown> | null;
}

/** The form knows FIXED points and points per order amount; other calculations are kept as they are. */
function formShape(rule: EarningRule): { kind: string; points: number; every: number } | null {
  const l = rule.loyalty;
  if (l.type === 'FIXED' && typeof l.points === 'number') return { kind: 'FIXED', points: l.points, every: 1 };
  if (l.type === 'PROPORTIONAL' && l.calculation_type === 'ORDER_AMOUNT' && l.order?.amount) return { kind: 'PROPORTIONAL', points: l.order.amount.points, every: l.order.amount.every / 100 };
  return null;
}

const dayOf = (iso: string | null) => (iso ? iso.slice(0, 10) : '');
const isoOf = (day: string) => (day === '' ? null : `${day}T00:00:00.000Z`);

interface Named {
  id: string;
  name: string;
}

const EMPTY_FORM = { name: '', event: 'order.paid', customEvent: '', segment: null as string | null, kind: 'PROPORTIONAL', points: 1 as number | string, every: 1 as number | string, validationRule: null as string | null, start: '', end: '' };

const points = (n: number) => `${n} ${n === 1 ? 'point' : 'points'}`;

/** The rule's points in words: "10 points" or "1 point per 10.00 of the order amount". */
export function pointsText(rule: EarningRule): string {
  const l = rule.loyalty;
  if (l.type === 'FIXED') return points(l.points ?? 0);
  if (l.calculation_type === 'ORDER_AMOUNT' && l.order?.amount) return `${points(l.order.amount.points)} per ${money(l.order.amount.every)} of the order amount`;
  return `proportional (${l.calculation_type ?? '—'})`;
}

const FIELDS = { name: '0.source', event: '0.event', points: '0.loyalty', segment: '0.segment', rule: '0.validation_rule_id', start: '0.start_date', end: '0.expiration_date', eName: 'source', ePoints: 'loyalty', eRule: 'validation_rule_id', eStart: 'start_date', eEnd: 'expiration_date' };

export function EarningRulesTab({ campaignId }: { campaignId: string }) {
  const client = useQueryClient();
  const can = useCan();
  const mayToggle = can('POST', '/v1/loyalties/:campaignId/earning-rules/:earningRuleId/enable') && can('POST', '/v1/loyalties/:campaignId/earning-rules/:earningRuleId/disable');
  const mayDelete = can('DELETE', '/v1/loyalties/:campaignId/earning-rules/:earningRuleId');
  const rules = useQuery({
    queryKey: ['earning-rules', campaignId],
    queryFn: async () => listOf<EarningRule>(await api('GET', withQuery(`/v1/loyalties/${campaignId}/earning-rules`, { limit: 100 }))),
  });
  const mayUpdate = can('PUT', '/v1/loyalties/:campaignId/earning-rules/:earningRuleId');
  const mayCreate = can('POST', '/v1/loyalties/:campaignId/earning-rules');
  const segments = useQuery({
    queryKey: ['segments', 'earning-rules'],
    queryFn: async () => listOf<Named>(await api('GET', withQuery('/v1/segments', { limit: 100 }))).items,
    enabled: mayCreate || mayUpdate,
  });
  const validationRules = useQuery({
    queryKey: ['validation-rules', 'earning-rules'],
    queryFn: async () => listOf<Named>(await api('GET', withQuery('/v1/validation-rules', { limit: 100 }))).items,
    enabled: mayCreate || mayUpdate,
  });
  const [form, setForm] = useState(EMPTY_FORM);
  const [editing, setEditing] = useState<EarningRule | null>(null);
  const { busy, errorFor, formError, submit, setError } = useFormSubmit(FIELDS);
  const refresh = () => client.invalidateQueries({ queryKey: ['earning-rules', campaignId] });
  const shape = editing ? formShape(editing) : null;
  // Errors name `0.member` on create (an array) and `member` on update.
  const fieldError = (name: 'name' | 'points' | 'rule' | 'start' | 'end') =>
    errorFor(name) ?? errorFor(({ name: 'eName', points: 'ePoints', rule: 'eRule', start: 'eStart', end: 'eEnd' } as const)[name]);

  const loyaltyOf = () =>
    form.kind === 'FIXED'
      ? { type: 'FIXED', points: Number(form.points) }
      : { type: 'PROPORTIONAL', calculation_type: 'ORDER_AMOUNT', order: { amount: { every: Math.round(Number(form.every) * 100), points: Number(form.points) } } };

  const save = submit(async () => {
    const common = { source: { banner: form.name }, validation_rule_id: form.validationRule, start_date: isoOf(form.start), expiration_date: isoOf(form.end) };
    if (editing) {
      // A calculation the form does not show is left as it is.
      await api('PUT', `/v1/loyalties/${campaignId}/earning-rules/${editing.id}`, { ...common, ...(shape ? { loyalty: loyaltyOf() } : {}) });
      notifyDone(`Earning rule “${form.name}” saved`);
      setEditing(null);
    } else {
      const event = form.event === 'custom' ? form.customEvent : form.event;
      await api('POST', `/v1/loyalties/${campaignId}/earning-rules`, [
        { event, ...(event === 'customer.segment.entered' ? { segment: { id: form.segment ?? '' } } : {}), loyalty: loyaltyOf(), ...common },
      ]);
      notifyDone('Earning rule created');
    }
    setForm(EMPTY_FORM);
    await refresh();
  });

  const edit = (rule: EarningRule) => {
    const known = formShape(rule);
    setEditing(rule);
    setError(null);
    setForm({
      ...EMPTY_FORM,
      name: rule.source.banner ?? '',
      event: rule.event,
      segment: rule.segment?.id ?? null,
      kind: known?.kind ?? 'FIXED',
      points: known?.points ?? 0,
      every: known?.every ?? 1,
      validationRule: rule.validation_rule_id,
      start: dayOf(rule.start_date),
      end: dayOf(rule.expiration_date),
    });
    document.getElementById(`earning-rule-form-${campaignId}`)?.scrollIntoView({ block: 'start' });
  };

  const cancelEdit = () => {
    setEditing(null);
    setError(null);
    setForm(EMPTY_FORM);
  };

  // The copy starts switched off: two active copies of a rule would give the points twice.
  const duplicate = async (rule: EarningRule) => {
    const name = `${rule.source.banner ?? rule.id} (copy)`;
    try {
      await api('POST', `/v1/loyalties/${campaignId}/earning-rules`, [
        {
          event: rule.event,
          ...(rule.segment ? { segment: rule.segment } : {}),
          ...(rule.custom_event ? { custom_event: rule.custom_event } : {}),
          ...(rule.loyalty_tier ? { loyalty_tier: rule.loyalty_tier } : {}),
          loyalty: rule.loyalty,
          source: { banner: name },
          validation_rule_id: rule.validation_rule_id,
          pending_points: rule.pending_points,
          start_date: rule.start_date,
          expiration_date: rule.expiration_date,
          metadata: rule.metadata,
          active: false,
        },
      ]);
      notifyDone(`“${name}” created, switched off`);
      await refresh();
    } catch (caught) {
      notifyFailed('The rule was not duplicated', caught);
    }
  };

  const toggle = async (rule: EarningRule) => {
    try {
      await api('POST', `/v1/loyalties/${campaignId}/earning-rules/${rule.id}/${rule.active ? 'disable' : 'enable'}`);
      await refresh();
    } catch (caught) {
      notifyFailed('The rule was not changed', caught);
    }
  };

  const remove = (rule: EarningRule) =>
    confirmThen({
      title: `Delete the earning rule “${rule.source.banner ?? rule.id}”?`,
      body: `Members stop earning ${pointsText(rule)} on ${rule.event}. Points already earned stay.`,
      confirm: 'Delete',
      action: async () => {
        await api('DELETE', `/v1/loyalties/${campaignId}/earning-rules/${rule.id}`);
        await refresh();
      },
      done: 'Earning rule deleted',
      failed: 'The rule was not deleted',
    });

  return (
    <Stack>
      <Card withBorder>
        <ErrorAlert error={rules.error} />
        {rules.data && rules.data.items.length === 0 && <Text c="dimmed">No earning rule yet: members earn no points.</Text>}
        {rules.data && rules.data.items.length > 0 && (
          <DataTable columns={mayToggle || mayDelete || mayUpdate || mayCreate ? ['Rule', 'Event', 'Points', 'Status', ''] : ['Rule', 'Event', 'Points', 'Status']} minWidth={640}>
            {rules.data.items.map((rule) => (
              <Table.Tr key={rule.id} data-testid={`earning-rule-${rule.id}`}>
                <Table.Td>{rule.source.banner ?? rule.id}</Table.Td>
                <Table.Td>
                  <code>{rule.event}</code>
                </Table.Td>
                <Table.Td data-testid="earning-rule-points">{pointsText(rule)}</Table.Td>
                <Table.Td>
                  <Badge variant="light" color={rule.active ? 'green' : 'gray'}>
                    {rule.active ? 'active' : 'disabled'}
                  </Badge>
                </Table.Td>
                {(mayToggle || mayDelete || mayUpdate || mayCreate) && (
                  <Table.Td>
                    <Group gap={4} wrap="nowrap" justify="flex-end">
                      {mayUpdate && (
                        <Button size="compact-xs" variant="default" aria-label={`Edit ${rule.source.banner ?? rule.id}`} onClick={() => edit(rule)}>
                          Edit
                        </Button>
                      )}
                      {mayCreate && (
                        <Button size="compact-xs" variant="default" aria-label={`Duplicate ${rule.source.banner ?? rule.id}`} onClick={() => void duplicate(rule)}>
                          Duplicate
                        </Button>
                      )}
                      {mayToggle && (
                        <Button size="compact-xs" variant="default" onClick={() => void toggle(rule)}>
                          {rule.active ? 'Disable' : 'Enable'}
                        </Button>
                      )}
                      {mayDelete && (
                        <ActionIcon variant="subtle" color="red" aria-label={`Delete ${rule.source.banner ?? rule.id}`} onClick={() => remove(rule)}>
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
        <div id={`earning-rule-form-${campaignId}`}>
          <FormCard
            title={editing ? `Edit earning rule “${editing.source.banner ?? editing.id}”` : 'New earning rule'}
            onSubmit={save}
            error={formError}
            errorTitle={editing ? 'The rule was not saved' : 'The rule was not created'}
            submit={editing ? 'Save earning rule' : 'Add earning rule'}
            busy={busy}
          >
            {editing && (
              <Group justify="space-between" wrap="wrap">
                <Text size="sm" c="dimmed">
                  The event{editing.segment ? ' and segment' : ''} cannot change once the rule exists.
                </Text>
                <Button variant="subtle" size="xs" onClick={cancelEdit}>
                  Cancel editing
                </Button>
              </Group>
            )}
            <Group align="flex-start" wrap="wrap">
              <TextInput label="Rule name" required value={form.name} onChange={(e) => setForm({ ...form, name: e.currentTarget.value })} error={fieldError('name')} w={240} />
              {editing ? (
                <TextInput label="When" value={editing.event + (editing.segment ? ` (${editing.segment.id})` : '')} readOnly disabled w={240} />
              ) : (
                <>
                  <Select
                    label="When"
                    value={form.event}
                    allowDeselect={false}
                    onChange={(value) => setForm({ ...form, event: value ?? 'order.paid' })}
                    data={[
                      { value: 'order.paid', label: 'An order is paid' },
                      { value: 'customer.segment.entered', label: 'A customer enters a segment' },
                      { value: 'custom', label: 'A custom event' },
                    ]}
                    error={form.event === 'custom' ? undefined : errorFor('event')}
                    w={240}
                  />
                  {form.event === 'customer.segment.entered' && (
                    <Select
                      label="Segment"
                      placeholder={segments.data?.length === 0 ? 'No segment yet' : 'Choose'}
                      value={form.segment}
                      onChange={(segment) => setForm({ ...form, segment })}
                      data={(segments.data ?? []).map((g) => ({ value: g.id, label: g.name }))}
                      error={errorFor('segment')}
                      searchable
                      w={240}
                    />
                  )}
                  {form.event === 'custom' && <TextInput label="Custom event name" value={form.customEvent} onChange={(e) => setForm({ ...form, customEvent: e.currentTarget.value })} error={errorFor('event')} w={200} />}
                </>
              )}
            </Group>
            {editing && !shape ? (
              <Text size="sm" c="dimmed">
                Points: {pointsText(editing)}. This calculation is kept as it is (change it through the API).
              </Text>
            ) : (
              <Group align="flex-end" wrap="wrap">
                <SegmentedControl
                  aria-label="Points given"
                  value={form.kind}
                  onChange={(kind) => setForm({ ...form, kind })}
                  data={[
                    { value: 'PROPORTIONAL', label: 'Per amount spent' },
                    { value: 'FIXED', label: 'Fixed' },
                  ]}
                />
                <NumberInput label="Points" value={form.points} onChange={(points) => setForm({ ...form, points })} min={0} error={fieldError('points')} w={120} />
                {form.kind === 'PROPORTIONAL' && (
                  <NumberInput label="For every (order amount)" value={form.every} onChange={(every) => setForm({ ...form, every })} min={0.01} decimalScale={2} w={240} />
                )}
              </Group>
            )}
            <Group align="flex-start" wrap="wrap">
              <Select
                label="Validation rule"
                description="Checked before points are added"
                placeholder="None"
                clearable
                value={form.validationRule}
                onChange={(validationRule) => setForm({ ...form, validationRule })}
                data={(validationRules.data ?? []).map((r) => ({ value: r.id, label: r.name }))}
                error={fieldError('rule')}
                searchable
                w={260}
              />
              <TextInput label="Starts" description="Empty: at once" type="date" value={form.start} onChange={(e) => setForm({ ...form, start: e.currentTarget.value })} error={fieldError('start')} w={170} />
              <TextInput label="Ends" description="Empty: never" type="date" value={form.end} onChange={(e) => setForm({ ...form, end: e.currentTarget.value })} error={fieldError('end')} w={170} />
            </Group>
          </FormCard>
        </div>
      )}
    </Stack>
  );
}
