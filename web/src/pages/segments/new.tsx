import { ActionIcon, Button, Card, Group, SegmentedControl, Select, Stack, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, withQuery } from '../../api/client.ts';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { useFormSubmit } from '../../components/forms.tsx';
import { Json } from '../../components/Json.tsx';
import { notifyDone } from '../../components/notify.ts';
import { PageHeader } from '../../components/PageHeader.tsx';
import { describeFilter, FILTER_FIELDS, FILTER_OPERATORS, FILTER_OPERATORS_BY_KIND, filterProblems, takesSeveral, takesValue, toFilter, type FilterModel, type FilterRow } from './filter.ts';
import type { Segment } from './list.tsx';

// A new segment: static (customers named by id, source_id or e-mail; e-mails are looked up first, as the
// API takes ids and source_ids) or auto-update (a filter on customer fields, built row by row).

const FIELDS = { name: 'name', customers: 'customers', filter: 'filter' };

const fieldOptions = Object.entries(FILTER_FIELDS).map(([value, f]) => ({ value, label: f.label }));

function FilterBuilder({ model, onChange, showProblems }: { model: FilterModel; onChange: (model: FilterModel) => void; showProblems: boolean }) {
  const problems = showProblems ? filterProblems(model) : [];
  const update = (index: number, patch: Partial<FilterRow>) => onChange({ ...model, rows: model.rows.map((r, i) => (i === index ? { ...r, ...patch } : r)) });
  return (
    <Stack gap="xs" data-testid="filter-builder">
      <Group justify="space-between">
        <Text size="sm" fw={500}>
          Customers whose
        </Text>
        {model.rows.length > 1 && (
          <SegmentedControl
            size="xs"
            aria-label="Join filters with"
            value={model.junction}
            onChange={(value) => onChange({ ...model, junction: value as FilterModel['junction'] })}
            data={[
              { value: 'and', label: 'All (and)' },
              { value: 'or', label: 'Any (or)' },
            ]}
          />
        )}
      </Group>
      {model.rows.map((row, index) => {
        const kind = FILTER_FIELDS[row.field]?.kind ?? 'text';
        const problem = problems
          .filter((p) => p.index === index)
          .map((p) => p.message)
          .join('; ');
        return (
          <Group key={index} gap="xs" align="flex-start" wrap="wrap" data-testid={`filter-${index}`}>
            <Select
              aria-label={`Filter ${index + 1} field`}
              data={fieldOptions}
              value={row.field}
              searchable
              allowDeselect={false}
              onChange={(value) => {
                const field = value ?? 'email';
                const next = FILTER_FIELDS[field]?.kind ?? 'text';
                update(index, { field, operator: FILTER_OPERATORS_BY_KIND[next].includes(row.operator) ? row.operator : (FILTER_OPERATORS_BY_KIND[next][0] ?? '$is') });
              }}
              w={170}
            />
            {kind === 'metadata' && <TextInput aria-label={`Filter ${index + 1} metadata key`} placeholder="metadata key" value={row.key} onChange={(e) => update(index, { key: e.currentTarget.value })} w={130} />}
            <Select
              aria-label={`Filter ${index + 1} operator`}
              data={FILTER_OPERATORS_BY_KIND[kind].map((op) => ({ value: op, label: FILTER_OPERATORS[op] ?? op }))}
              value={row.operator}
              allowDeselect={false}
              onChange={(value) => update(index, { operator: value ?? row.operator })}
              w={160}
            />
            {takesValue(row.operator) && (
              <TextInput
                aria-label={`Filter ${index + 1} value`}
                placeholder={kind === 'date' || kind === 'instant' ? '2026-12-31' : takesSeveral(row.operator) ? 'a, b, c' : 'value'}
                value={row.value}
                onChange={(e) => update(index, { value: e.currentTarget.value })}
                error={problem || undefined}
                w={180}
              />
            )}
            {!takesValue(row.operator) && problem && (
              <Text size="xs" c="red">
                {problem}
              </Text>
            )}
            <ActionIcon variant="subtle" color="red" mt={4} aria-label={`Remove filter ${index + 1}`} onClick={() => onChange({ ...model, rows: model.rows.filter((_, i) => i !== index) })}>
              ✕
            </ActionIcon>
          </Group>
        );
      })}
      <Group>
        <Button variant="light" size="xs" onClick={() => onChange({ ...model, rows: [...model.rows, { field: 'email', key: '', operator: '$is', value: '' }] })}>
          Add filter
        </Button>
      </Group>
      <Text size="sm" data-testid="filter-summary">
        {describeFilter(model)}
      </Text>
      <Json value={toFilter(model)} label="Filter preview" />
    </Stack>
  );
}

/** Customer ids and source_ids for what was typed; e-mails become the id of the customer having it. */
async function resolveCustomers(text: string): Promise<string[]> {
  const entries = text
    .split(/[\n,]/)
    .map((t) => t.trim())
    .filter((t) => t !== '');
  const out: string[] = [];
  for (const entry of entries) {
    if (!entry.includes('@')) {
      out.push(entry);
      continue;
    }
    const found = await api<{ customers: Array<{ id: string }> }>('GET', withQuery('/v1/customers', { email: entry, limit: 2 }));
    const [customer] = found.customers;
    if (!customer) throw new Error(`No customer has the e-mail ${entry}`);
    out.push(customer.id);
  }
  return out;
}

export function NewSegmentPage() {
  const navigate = useNavigate();
  const client = useQueryClient();
  const [name, setName] = useState('');
  const [type, setType] = useState<Segment['type']>('static');
  const [customers, setCustomers] = useState('');
  const [filter, setFilter] = useState<FilterModel>({ junction: 'and', rows: [] });
  const [submitted, setSubmitted] = useState(false);
  const form = useFormSubmit(FIELDS);

  const create = form.submit(async () => {
    setSubmitted(true);
    if (type === 'auto-update' && filterProblems(filter).length > 0) throw new Error('Complete the filters first');
    const body = type === 'static' ? { name, type, customers: await resolveCustomers(customers) } : { name, type, filter: toFilter(filter) };
    const segment = await api<Segment>('POST', '/v1/segments', body);
    await client.invalidateQueries({ queryKey: ['segments'] });
    notifyDone(`Segment ${segment.name} created`);
    void navigate(`/segments/${segment.id}`);
  });

  return (
    <>
      <PageHeader title="New segment" />
      <form onSubmit={(e) => void create(e)}>
        <Card withBorder>
          <Stack>
            <TextInput label="Name" required value={name} onChange={(e) => setName(e.currentTarget.value)} error={form.errorFor('name')} />
            <Stack gap={4}>
              <Title order={2} size="h6">
                Members
              </Title>
              <SegmentedControl
                aria-label="Segment type"
                value={type}
                onChange={(value) => {
                  setType(value as Segment['type']);
                  form.setError(null);
                }}
                data={[
                  { value: 'static', label: 'Picked customers (static)' },
                  { value: 'auto-update', label: 'By filter (auto-update)' },
                ]}
              />
            </Stack>
            {type === 'static' ? (
              <Textarea
                label="Customers"
                description="One per line (or separated by commas): customer id, source_id or e-mail"
                autosize
                minRows={3}
                value={customers}
                onChange={(e) => setCustomers(e.currentTarget.value)}
                error={form.errorFor('customers')}
              />
            ) : (
              <FilterBuilder model={filter} onChange={setFilter} showProblems={submitted} />
            )}
            {form.errorFor('filter') && (
              <Text size="sm" c="red">
                {form.errorFor('filter')}
              </Text>
            )}
            {form.formError !== null && <ErrorAlert error={form.formError} title="The segment was not created" />}
            <Group>
              <Button type="submit" loading={form.busy}>
                Create segment
              </Button>
              <Button variant="default" component={Link} to="/segments">
                Cancel
              </Button>
            </Group>
          </Stack>
        </Card>
      </form>
    </>
  );
}
