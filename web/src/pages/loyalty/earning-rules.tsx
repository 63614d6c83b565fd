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

// What earns points in a program: the rules (GET /v1/loyalties/{id}/earning-rules), a form for the two
// common shapes (a fixed number of points per event, or points for every amount spent), enable/disable
// and delete. The API's error shows next to the input whose member it names.

export interface EarningRule {
  id: string;
  event: string;
  active: boolean;
  source: { banner: string | null };
  loyalty: { type: string; points?: number; calculation_type?: string; order?: { amount?: { every: number; points: number } } };
}

const points = (n: number) => `${n} ${n === 1 ? 'point' : 'points'}`;

/** The rule's points in words: "10 points" or "1 point per 10.00 of the order amount". */
export function pointsText(rule: EarningRule): string {
  const l = rule.loyalty;
  if (l.type === 'FIXED') return points(l.points ?? 0);
  if (l.calculation_type === 'ORDER_AMOUNT' && l.order?.amount) return `${points(l.order.amount.points)} per ${money(l.order.amount.every)} of the order amount`;
  return `proportional (${l.calculation_type ?? '—'})`;
}

const FIELDS = { name: '0.source', event: '0.event', points: '0.loyalty' };

export function EarningRulesTab({ campaignId }: { campaignId: string }) {
  const client = useQueryClient();
  const can = useCan();
  const mayToggle = can('POST', '/v1/loyalties/:campaignId/earning-rules/:earningRuleId/enable') && can('POST', '/v1/loyalties/:campaignId/earning-rules/:earningRuleId/disable');
  const mayDelete = can('DELETE', '/v1/loyalties/:campaignId/earning-rules/:earningRuleId');
  const rules = useQuery({
    queryKey: ['earning-rules', campaignId],
    queryFn: async () => listOf<EarningRule>(await api('GET', withQuery(`/v1/loyalties/${campaignId}/earning-rules`, { limit: 100 }))),
  });
  const [form, setForm] = useState({ name: '', event: 'order.paid', customEvent: '', kind: 'PROPORTIONAL', points: 1 as number | string, every: 1 as number | string });
  const { busy, errorFor, formError, submit } = useFormSubmit(FIELDS);
  const refresh = () => client.invalidateQueries({ queryKey: ['earning-rules', campaignId] });

  const create = submit(async () => {
    const loyalty =
      form.kind === 'FIXED'
        ? { type: 'FIXED', points: Number(form.points) }
        : { type: 'PROPORTIONAL', calculation_type: 'ORDER_AMOUNT', order: { amount: { every: Math.round(Number(form.every) * 100), points: Number(form.points) } } };
    await api('POST', `/v1/loyalties/${campaignId}/earning-rules`, [
      { event: form.event === 'custom' ? form.customEvent : form.event, source: { banner: form.name }, loyalty },
    ]);
    notifyDone('Earning rule created');
    setForm({ ...form, name: '' });
    await refresh();
  });

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
      title: `Delete “${rule.source.banner ?? rule.id}”?`,
      body: 'Members stop earning points by this rule. Points already earned stay.',
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
          <DataTable columns={mayToggle || mayDelete ? ['Rule', 'Event', 'Points', 'Status', ''] : ['Rule', 'Event', 'Points', 'Status']} minWidth={560}>
            {rules.data.items.map((rule) => (
              <Table.Tr key={rule.id} data-testid={`earning-rule-${rule.id}`}>
                <Table.Td>{rule.source.banner ?? rule.id}</Table.Td>
                <Table.Td>
                  <code>{rule.event}</code>
                </Table.Td>
                <Table.Td>{pointsText(rule)}</Table.Td>
                <Table.Td>
                  <Badge variant="light" color={rule.active ? 'green' : 'gray'}>
                    {rule.active ? 'active' : 'disabled'}
                  </Badge>
                </Table.Td>
                {(mayToggle || mayDelete) && (
                  <Table.Td>
                    <Group gap={4} wrap="nowrap" justify="flex-end">
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
      {can('POST', '/v1/loyalties/:campaignId/earning-rules') && (
      <FormCard title="New earning rule" onSubmit={create} error={formError} errorTitle="The rule was not created" submit="Add earning rule" busy={busy}>
        <Group align="flex-start" wrap="wrap">
          <TextInput label="Rule name" required value={form.name} onChange={(e) => setForm({ ...form, name: e.currentTarget.value })} error={errorFor('name')} w={240} />
          <Select
            label="When"
            value={form.event}
            allowDeselect={false}
            onChange={(value) => setForm({ ...form, event: value ?? 'order.paid' })}
            data={[
              { value: 'order.paid', label: 'An order is paid' },
              { value: 'custom', label: 'A custom event' },
            ]}
            error={form.event === 'custom' ? undefined : errorFor('event')}
            w={200}
          />
          {form.event === 'custom' && <TextInput label="Custom event name" value={form.customEvent} onChange={(e) => setForm({ ...form, customEvent: e.currentTarget.value })} error={errorFor('event')} w={200} />}
        </Group>
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
          <NumberInput label="Points" value={form.points} onChange={(points) => setForm({ ...form, points })} min={0} error={errorFor('points')} w={120} />
          {form.kind === 'PROPORTIONAL' && (
            <NumberInput label="For every (order amount)" value={form.every} onChange={(every) => setForm({ ...form, every })} min={0.01} decimalScale={2} w={240} />
          )}
        </Group>
      </FormCard>
      )}
    </Stack>
  );
}
