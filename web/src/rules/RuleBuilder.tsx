import { ActionIcon, Button, Card, Group, SegmentedControl, Select, Stack, Text, Textarea, TextInput, Title } from '@mantine/core';
import { Json } from '../components/Json.tsx';
import { describe, FIELDS, OPERATORS, OPERATORS_BY_KIND, problemsOf, toApi, type Condition, type FieldName, type RuleModel } from './translate.ts';

// Conditions joined by AND or OR, and the order lines the discount applies to; below, the rule object
// exactly as the API will store it.

const fieldOptions = Object.entries(FIELDS).map(([value, f]) => ({ value, label: f.label }));

function parseEntries(text: string): RuleModel['applicableTo'] {
  return text
    .split(/[\n,]/)
    .map((t) => t.trim())
    .filter((t) => t !== '')
    .map((id) => ({ object: id.startsWith('pc_') ? 'products_collection' : id.startsWith('sku_') ? 'sku' : 'product', id }) as const);
}

/** `showProblems`: name every incomplete condition (after a submit); before that, only values typed wrong. */
export function RuleBuilder({ model, onChange, error, showProblems }: { model: RuleModel; onChange: (model: RuleModel) => void; error?: string | null; showProblems?: boolean }) {
  const problems = problemsOf(model).filter((p) => showProblems || (model.conditions[p.index]?.value.trim() ?? '') !== '');
  const update = (index: number, patch: Partial<Condition>) =>
    onChange({ ...model, conditions: model.conditions.map((c, i) => (i === index ? { ...c, ...patch } : c)) });
  const add = () => onChange({ ...model, conditions: [...model.conditions, { field: 'order.amount', property: '', operator: '$more_than_or_equal', value: '' }] });
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
          const problem = problems.find((p) => p.index === index)?.message;
          return (
            <Group key={index} align="flex-start" gap="xs" wrap="wrap" data-testid={`condition-${index}`}>
              <Select
                aria-label={`Condition ${index + 1} field`}
                data={fieldOptions}
                value={condition.field}
                allowDeselect={false}
                onChange={(value) => {
                  const next = (value ?? 'order.amount') as FieldName;
                  update(index, { field: next, operator: OPERATORS_BY_KIND[FIELDS[next].kind][0] ?? '$is' });
                }}
                w={220}
              />
              {'property' in field && field.property && (
                <TextInput aria-label={`Condition ${index + 1} metadata key`} placeholder="metadata key" value={condition.property} onChange={(e) => update(index, { property: e.currentTarget.value })} w={140} />
              )}
              <Select
                aria-label={`Condition ${index + 1} operator`}
                data={OPERATORS_BY_KIND[field.kind].map((op) => ({ value: op, label: OPERATORS[op] }))}
                value={condition.operator}
                allowDeselect={false}
                onChange={(value) => update(index, { operator: (value ?? condition.operator) as Condition['operator'] })}
                w={130}
              />
              <TextInput
                aria-label={`Condition ${index + 1} value`}
                placeholder={field.kind === 'money' ? '50.00' : condition.operator === '$in' ? 'a, b, c' : 'value'}
                value={condition.value}
                onChange={(e) => update(index, { value: e.currentTarget.value })}
                error={problem}
                w={140}
              />
              <ActionIcon variant="subtle" color="red" aria-label={`Remove condition ${index + 1}`} onClick={() => remove(index)} mt={4}>
                ✕
              </ActionIcon>
            </Group>
          );
        })}
        <Group>
          <Button variant="light" size="xs" onClick={add}>
            Add condition
          </Button>
        </Group>
        <Textarea
          label="Applies to (product, SKU or collection ids; empty = the whole order)"
          autosize
          minRows={1}
          value={model.applicableTo.map((e) => e.id).join('\n')}
          onChange={(e) => onChange({ ...model, applicableTo: parseEntries(e.currentTarget.value) })}
        />
        <Text size="sm" data-testid="rule-summary">
          {describe(model)}
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
