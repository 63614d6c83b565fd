import { ActionIcon, Button, Group, MultiSelect, SegmentedControl, Select, Stack, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, listOf, withQuery } from '../../api/client.ts';
import { FormCard, useFormSubmit } from '../../components/forms.tsx';
import { CATALOG_KEY, productLabel, skuLabel, type Product } from './catalog.ts';

// A new product collection: STATIC, holding the products and SKUs picked here by name, or AUTO_UPDATE,
// holding every live product that matches the conditions (the API's filter grammar: one entry per field,
// `{ conditions: { $operator: [values] } }`, joined by `junction`).

export interface Collection {
  id: string;
  name: string;
  type: 'STATIC' | 'AUTO_UPDATE';
  filter?: Record<string, unknown>;
  products?: Array<{ id: string; object: 'product' | 'sku'; product_id?: string }>;
  created_at: string;
}

type Kind = 'text' | 'price' | 'instant' | 'metadata';

const FIELDS: Array<{ value: string; label: string; kind: Kind }> = [
  { value: 'name', label: 'Name', kind: 'text' },
  { value: 'source_id', label: 'Source id', kind: 'text' },
  { value: 'price', label: 'Price', kind: 'price' },
  { value: 'image_url', label: 'Image URL', kind: 'text' },
  { value: 'created_at', label: 'Created', kind: 'instant' },
  { value: 'updated_at', label: 'Changed', kind: 'instant' },
  { value: 'metadata', label: 'Metadata key…', kind: 'metadata' },
];

const OPERATORS: Record<Kind, Array<{ value: string; label: string }>> = {
  text: [
    { value: '$is', label: 'is' },
    { value: '$is_not', label: 'is not' },
    { value: '$contains', label: 'contains' },
    { value: '$starts_with', label: 'starts with' },
    { value: '$ends_with', label: 'ends with' },
    { value: '$has_value', label: 'has a value' },
    { value: '$is_unknown', label: 'has no value' },
  ],
  price: [
    { value: '$is', label: 'is' },
    { value: '$more_than_equal', label: 'at least' },
    { value: '$less_than_equal', label: 'at most' },
    { value: '$more_than', label: 'more than' },
    { value: '$less_than', label: 'less than' },
    { value: '$has_value', label: 'has a value' },
    { value: '$is_unknown', label: 'has no value' },
  ],
  instant: [
    { value: '$after', label: 'after' },
    { value: '$before', label: 'before' },
  ],
  metadata: [
    { value: '$is', label: 'is' },
    { value: '$is_not', label: 'is not' },
    { value: '$contains', label: 'contains' },
    { value: '$more_than', label: 'more than (number)' },
    { value: '$less_than', label: 'less than (number)' },
    { value: '$has_value', label: 'has a value' },
    { value: '$is_unknown', label: 'has no value' },
  ],
};

const NO_VALUE = new Set(['$has_value', '$is_unknown']);
const NUMERIC = new Set(['$more_than', '$less_than', '$more_than_equal', '$less_than_equal']);

interface Condition {
  field: string;
  key: string;
  operator: string;
  value: string;
}

const kindOf = (field: string): Kind => FIELDS.find((f) => f.value === field)?.kind ?? 'text';
const blank = (): Condition => ({ field: 'name', key: '', operator: '$contains', value: '' });

/** The API's filter for the conditions; conditions on one field are joined in that field's entry. */
export function filterOf(conditions: Condition[], junction: 'and' | 'or'): Record<string, unknown> {
  const filter: Record<string, { conditions: Record<string, unknown[]> }> = {};
  for (const c of conditions) {
    const kind = kindOf(c.field);
    const field = kind === 'metadata' ? `metadata.${c.key.trim()}` : c.field;
    let values: unknown[] = [];
    if (!NO_VALUE.has(c.operator)) {
      const text = c.value.trim();
      // Prices are typed in major units and filtered in minor units; comparisons of metadata are numeric.
      values = [kind === 'price' ? Math.round(Number(text) * 100) : kind === 'metadata' && NUMERIC.has(c.operator) ? Number(text) : text];
    }
    const entry = (filter[field] ??= { conditions: {} });
    entry.conditions[c.operator] = values;
  }
  return { junction, ...filter };
}

function ConditionRow({ condition, onChange, onRemove, index }: { condition: Condition; onChange: (c: Condition) => void; onRemove?: () => void; index: number }) {
  const kind = kindOf(condition.field);
  return (
    <Group align="flex-end" gap="xs" wrap="wrap" data-testid={`condition-${index}`}>
      <Select
        label="Field"
        data={FIELDS.map(({ value, label }) => ({ value, label }))}
        value={condition.field}
        allowDeselect={false}
        onChange={(field) => field && onChange({ ...condition, field, operator: OPERATORS[kindOf(field)][0]?.value ?? '$is', value: '' })}
        w={160}
      />
      {kind === 'metadata' && <TextInput label="Key" value={condition.key} onChange={(e) => onChange({ ...condition, key: e.currentTarget.value })} w={120} />}
      <Select label="Test" data={OPERATORS[kind]} value={condition.operator} allowDeselect={false} onChange={(operator) => operator && onChange({ ...condition, operator })} w={150} />
      {!NO_VALUE.has(condition.operator) && (
        <TextInput
          label={kind === 'price' ? 'Amount' : 'Value'}
          type={kind === 'instant' ? 'date' : kind === 'price' ? 'number' : 'text'}
          value={condition.value}
          onChange={(e) => onChange({ ...condition, value: e.currentTarget.value })}
          w={160}
        />
      )}
      {onRemove && (
        <ActionIcon variant="subtle" color="gray" onClick={onRemove} aria-label={`Remove condition ${index + 1}`} mb={4}>
          ✕
        </ActionIcon>
      )}
    </Group>
  );
}

/** Products found by name, each with its SKUs, as options; what was picked stays listed whatever is searched. */
function CatalogPicker({ value, onChange, error }: { value: string[]; onChange: (value: string[]) => void; error: string | undefined }) {
  const [search, setSearch] = useState('');
  const [typed] = useDebouncedValue(search.trim(), 250);
  const [labels, setLabels] = useState<Record<string, string>>({});
  const found = useQuery({
    queryKey: [CATALOG_KEY, 'picker', typed],
    queryFn: async () => listOf<Product>(await api('GET', withQuery('/v1/products', { name: typed, limit: 20 })), 'products'),
  });
  const options: Record<string, string> = {};
  for (const product of found.data?.items ?? []) {
    options[`product:${product.id}`] = `${productLabel(product)} (whole product)`;
    for (const sku of product.skus?.data ?? []) options[`sku:${sku.id}`] = `${productLabel(product)} — ${skuLabel(sku)}`;
  }
  const data = [...new Set([...value, ...Object.keys(options)])].map((v) => ({ value: v, label: options[v] ?? labels[v] ?? v }));
  return (
    <MultiSelect
      label="Products and SKUs"
      description="Type part of a product's name to find it and its SKUs"
      placeholder="Search by name"
      searchable
      searchValue={search}
      onSearchChange={setSearch}
      // The API already searched by name; a SKU's option matches through its product's name.
      filter={({ options: all }) => all}
      nothingFoundMessage={found.isFetching ? 'Searching…' : 'No product has that in its name'}
      data={data}
      value={value}
      onChange={(next) => {
        setLabels({ ...labels, ...Object.fromEntries(next.map((v) => [v, options[v] ?? labels[v] ?? v])) });
        onChange(next);
      }}
      error={error}
      maxDropdownHeight={280}
      hidePickedOptions
    />
  );
}

export function CollectionForm({ onCreated }: { onCreated: (created: Collection) => Promise<unknown> | void }) {
  const [name, setName] = useState('');
  const [type, setType] = useState<'STATIC' | 'AUTO_UPDATE'>('STATIC');
  const [picked, setPicked] = useState<string[]>([]);
  const [junction, setJunction] = useState<'and' | 'or'>('and');
  const [conditions, setConditions] = useState<Condition[]>([blank()]);
  const { busy, errorFor, formError, submit } = useFormSubmit({ name: 'name', products: 'products', filter: 'filter' });
  const create = submit(async () => {
    const body =
      type === 'STATIC'
        ? { name, type, products: picked.map((v) => ({ object: v.startsWith('sku:') ? 'sku' : 'product', id: v.slice(v.indexOf(':') + 1) })) }
        : { name, type, filter: filterOf(conditions, junction) };
    await onCreated(await api<Collection>('POST', '/v1/product-collections', body));
  });
  return (
    <FormCard title="New collection" onSubmit={create} error={formError} errorTitle="The collection was not created" submit="Create collection" busy={busy}>
      <Group align="flex-end" wrap="wrap">
        <TextInput label="Collection name" required value={name} onChange={(e) => setName(e.currentTarget.value)} error={errorFor('name')} w={260} />
        <SegmentedControl
          aria-label="Kind of collection"
          value={type}
          onChange={(v) => setType(v as 'STATIC' | 'AUTO_UPDATE')}
          data={[
            { value: 'STATIC', label: 'Picked products' },
            { value: 'AUTO_UPDATE', label: 'Matching a filter' },
          ]}
        />
      </Group>
      {type === 'STATIC' ? (
        <CatalogPicker value={picked} onChange={setPicked} error={errorFor('products')} />
      ) : (
        <Stack gap="xs">
          <Text size="sm" c="dimmed">
            Holds every live product that matches, now and later, with its SKUs.
          </Text>
          {conditions.length > 1 && (
            <SegmentedControl
              aria-label="Join the conditions"
              value={junction}
              onChange={(v) => setJunction(v as 'and' | 'or')}
              data={[
                { value: 'and', label: 'All conditions hold' },
                { value: 'or', label: 'Any condition holds' },
              ]}
              w="fit-content"
            />
          )}
          {conditions.map((condition, i) => (
            <ConditionRow
              key={i}
              index={i}
              condition={condition}
              onChange={(next) => setConditions(conditions.map((c, j) => (j === i ? next : c)))}
              {...(conditions.length > 1 ? { onRemove: () => setConditions(conditions.filter((_, j) => j !== i)) } : {})}
            />
          ))}
          <Group>
            <Button size="xs" variant="default" onClick={() => setConditions([...conditions, blank()])}>
              Add a condition
            </Button>
          </Group>
          {errorFor('filter') && (
            <Text size="sm" c="red" role="alert">
              {errorFor('filter')}
            </Text>
          )}
        </Stack>
      )}
    </FormCard>
  );
}
