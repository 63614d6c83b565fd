import { ActionIcon, Button, Card, Group, MultiSelect, SegmentedControl, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { Json } from '../components/Json.tsx';
import { entryOf, pickValue, useCatalog, useRuleNames, useSegments, type PickOption } from './catalog.ts';
import {
  describe,
  FIELDS,
  LINE_FIELDS,
  newCondition,
  OPERATORS,
  OPERATORS_BY_KIND,
  problemsOf,
  takesMany,
  toApi,
  type ApplicableEntry,
  type Condition,
  type FieldName,
  type LineCondition,
  type LineFieldName,
  type RuleModel,
} from './translate.ts';

// Conditions joined by AND or OR, and the order lines the discount applies to; below, the rule in plain
// words and the rule object exactly as the API will store it. Products, SKUs, collections and segments
// are picked by name.

const fieldOptions = (() => {
  const groups = new Map<string, Array<{ value: string; label: string }>>();
  for (const [value, f] of Object.entries(FIELDS)) groups.set(f.group, [...(groups.get(f.group) ?? []), { value, label: f.label }]);
  return [...groups].map(([group, items]) => ({ group, items }));
})();

const lineOptions = Object.entries(LINE_FIELDS).map(([value, f]) => ({ value, label: f.label }));

function placeholderOf(kind: string, operator: string): string {
  if (kind === 'money') return takesMany(operator as never) ? '10.00, 20.00' : '50.00';
  if (kind === 'number') return takesMany(operator as never) ? '1, 2' : '3';
  return takesMany(operator as never) ? 'a, b, c' : 'value';
}

/** A searchable pick of products, SKUs and collections by name; `collectionsOnly` for "from collection". */
function ItemPicker({ label, value, onChange, collectionsOnly = false, error }: { label: string; value: ApplicableEntry[]; onChange: (entries: ApplicableEntry[]) => void; collectionsOnly?: boolean; error?: string | undefined }) {
  const catalog = useCatalog();
  const known = new Set<string>();
  const group = (name: string, options: PickOption[]) => {
    for (const o of options) known.add(o.value);
    return { group: name, items: options };
  };
  const data = catalog.data
    ? [...(collectionsOnly ? [] : [group('Products', catalog.data.products), group('SKUs', catalog.data.skus)]), group('Collections', catalog.data.collections)]
    : [];
  // Entries the catalog does not list (deleted, or beyond what was loaded) still show, by id.
  const unknown = value.map(pickValue).filter((v) => !known.has(v));
  if (unknown.length > 0) data.push({ group: 'Not found', items: unknown.map((v) => ({ value: v, label: entryOf(v).id })) });
  return (
    <MultiSelect
      aria-label={label}
      placeholder={catalog.isPending ? 'Loading the catalogue…' : 'Search by name'}
      searchable
      clearable
      nothingFoundMessage={catalog.error ? 'The catalogue could not be read' : 'No product, SKU or collection of that name'}
      data={data}
      value={value.map(pickValue)}
      onChange={(values) => onChange(values.map(entryOf))}
      error={error}
      miw={220}
      style={{ flex: 1 }}
    />
  );
}

function SegmentPicker({ label, value, onChange, error }: { label: string; value: string; onChange: (value: string) => void; error?: string | undefined }) {
  const segments = useSegments();
  const selected = value.split(',').map((v) => v.trim()).filter((v) => v !== '');
  const data = [...(segments.data ?? [])];
  for (const id of selected) if (!data.some((s) => s.value === id)) data.push({ value: id, label: id });
  return (
    <MultiSelect
      aria-label={label}
      placeholder={segments.isPending ? 'Loading segments…' : 'Pick segments'}
      searchable
      nothingFoundMessage="No segment of that name"
      data={data}
      value={selected}
      onChange={(values) => onChange(values.join(', '))}
      error={error}
      miw={200}
      style={{ flex: 1 }}
    />
  );
}

function LineConditions({ index, lines, onChange }: { index: number; lines: LineCondition[]; onChange: (lines: LineCondition[]) => void }) {
  const update = (i: number, patch: Partial<LineCondition>) => onChange(lines.map((l, j) => (j === i ? { ...l, ...patch } : l)));
  return (
    <Stack gap={6} pl="md" w="100%">
      {lines.map((line, i) => (
        <Group key={i} gap="xs" wrap="wrap" data-testid={`condition-${index}-line-${i}`}>
          <Text size="sm" c="dimmed">
            with
          </Text>
          <Select
            aria-label={`Condition ${index + 1} line ${i + 1} field`}
            data={lineOptions}
            value={line.field}
            allowDeselect={false}
            onChange={(value) => update(i, { field: (value ?? line.field) as LineFieldName })}
            w={210}
          />
          <Select
            aria-label={`Condition ${index + 1} line ${i + 1} operator`}
            data={OPERATORS_BY_KIND[LINE_FIELDS[line.field].kind].map((op) => ({ value: op, label: OPERATORS[op] }))}
            value={line.operator}
            allowDeselect={false}
            onChange={(value) => update(i, { operator: (value ?? line.operator) as LineCondition['operator'] })}
            w={130}
          />
          <TextInput
            aria-label={`Condition ${index + 1} line ${i + 1} value`}
            placeholder={placeholderOf(LINE_FIELDS[line.field].kind, line.operator)}
            value={line.value}
            onChange={(e) => update(i, { value: e.currentTarget.value })}
            w={110}
          />
          <ActionIcon variant="subtle" color="red" aria-label={`Remove condition ${index + 1} line ${i + 1}`} onClick={() => onChange(lines.filter((_, j) => j !== i))}>
            ✕
          </ActionIcon>
        </Group>
      ))}
      <Group>
        <Button variant="subtle" size="compact-xs" onClick={() => onChange([...lines, { field: 'order.items.quantity', operator: '$more_than_or_equal', value: '' }])}>
          Add quantity or price condition
        </Button>
      </Group>
    </Stack>
  );
}

/** `showProblems`: name every incomplete condition (after a submit); before that, only values typed wrong. */
export function RuleBuilder({ model, onChange, error, showProblems }: { model: RuleModel; onChange: (model: RuleModel) => void; error?: string | null; showProblems?: boolean }) {
  const names = useRuleNames();
  const problems = problemsOf(model).filter((p) => {
    const c = model.conditions[p.index];
    return showProblems || (c !== undefined && FIELDS[c.field].kind !== 'items' && FIELDS[c.field].kind !== 'segment' && c.value.trim() !== '');
  });
  const update = (index: number, patch: Partial<Condition>) =>
    onChange({ ...model, conditions: model.conditions.map((c, i) => (i === index ? { ...c, ...patch } : c)) });
  const add = () => onChange({ ...model, conditions: [...model.conditions, newCondition('order.amount')] });
  const remove = (index: number) => onChange({ ...model, conditions: model.conditions.filter((_, i) => i !== index) });

  return (
    <Card withBorder data-testid="rule-builder">
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={3} size="h5">
            Validation rule
          </Title>
          {model.conditions.length > 1 && (
            <SegmentedControl
              size="xs"
              aria-label="Join conditions with"
              value={model.combinator}
              onChange={(value) => onChange({ ...model, combinator: value as RuleModel['combinator'] })}
              data={[
                { value: 'AND', label: 'All (AND)' },
                { value: 'OR', label: 'Any (OR)' },
              ]}
            />
          )}
        </Group>
        {model.conditions.map((condition, index) => {
          const field = FIELDS[condition.field];
          const problem = problems
            .filter((p) => p.index === index)
            .map((p) => p.message)
            .join('; ');
          const label = (what: string) => `Condition ${index + 1} ${what}`;
          return (
            <Group key={index} align="flex-start" gap="xs" wrap="wrap" data-testid={`condition-${index}`}>
              <Select
                aria-label={label('field')}
                data={fieldOptions}
                value={condition.field}
                allowDeselect={false}
                searchable
                onChange={(value) => {
                  const next = (value ?? 'order.amount') as FieldName;
                  if (next !== condition.field) update(index, { ...newCondition(next), property: 'property' in FIELDS[next] ? condition.property : '' });
                }}
                w={290}
              />
              {'property' in field && field.property && (
                <TextInput aria-label={label('metadata key')} placeholder="metadata key" value={condition.property} onChange={(e) => update(index, { property: e.currentTarget.value })} w={140} />
              )}
              {field.kind !== 'flag' && (
                <Select
                  aria-label={label('operator')}
                  data={OPERATORS_BY_KIND[field.kind].map((op) => ({ value: op, label: OPERATORS[op] }))}
                  value={condition.operator}
                  allowDeselect={false}
                  onChange={(value) => update(index, { operator: (value ?? condition.operator) as Condition['operator'] })}
                  w={field.kind === 'text' ? 200 : 150}
                />
              )}
              {field.kind === 'items' ? (
                <ItemPicker
                  label={label('items')}
                  value={condition.items ?? []}
                  onChange={(items) => update(index, { items })}
                  collectionsOnly={condition.operator === '$from'}
                  error={problem || undefined}
                />
              ) : field.kind === 'segment' ? (
                <SegmentPicker label={label('segments')} value={condition.value} onChange={(value) => update(index, { value })} error={problem || undefined} />
              ) : field.kind === 'flag' ? (
                <Select
                  aria-label={label('value')}
                  data={[
                    { value: 'true', label: 'required' },
                    { value: 'false', label: 'not required' },
                  ]}
                  value={condition.value}
                  allowDeselect={false}
                  onChange={(value) => update(index, { value: value ?? 'true' })}
                  w={150}
                />
              ) : (
                <TextInput
                  aria-label={label('value')}
                  placeholder={placeholderOf(field.kind, condition.operator)}
                  value={condition.value}
                  onChange={(e) => update(index, { value: e.currentTarget.value })}
                  error={problem || undefined}
                  w={150}
                />
              )}
              <ActionIcon variant="subtle" color="red" aria-label={`Remove condition ${index + 1}`} onClick={() => remove(index)} mt={4}>
                ✕
              </ActionIcon>
              {field.kind === 'items' && <LineConditions index={index} lines={condition.lines ?? []} onChange={(lines) => update(index, { lines })} />}
            </Group>
          );
        })}
        <Group>
          <Button variant="light" size="xs" onClick={add}>
            Add condition
          </Button>
        </Group>
        <Stack gap={4}>
          <Text size="sm" fw={500}>
            Applies to (empty: the whole order)
          </Text>
          <ItemPicker label="Discount applies to" value={model.applicableTo} onChange={(applicableTo) => onChange({ ...model, applicableTo })} />
          {(model.applicableTo.length > 0 || model.excluded.length > 0) && (
            <ItemPicker label="Except" value={model.excluded} onChange={(excluded) => onChange({ ...model, excluded })} />
          )}
        </Stack>
        <Text size="sm" data-testid="rule-summary">
          {describe(model, names)}
        </Text>
        {error && (
          <Text size="sm" c="red" role="alert">
            {error}
          </Text>
        )}
        <div>
          <Text size="xs" c="dimmed" mb={4}>
            The rule the API will store
          </Text>
          <Json value={toApi(model)} label="Rule preview" />
        </div>
      </Stack>
    </Card>
  );
}
