import { ActionIcon, Autocomplete, Button, Card, Checkbox, Group, Loader, Select, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { METADATA_TYPES } from '../../../../src/domain/metadata-schemas/metadata-problems.ts';
import { api } from '../../api/client.ts';
import { useCan } from '../../app/session.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { confirmThen, useFormSubmit } from '../../components/forms.tsx';
import { notifyDone } from '../../components/notify.ts';
import { PageHeader } from '../../components/PageHeader.tsx';
import { SCHEMAS_ROUTE, useSchemasBase, type MetadataSchema, type PropertyDefinition } from './list.tsx';

// Creating and editing a metadata schema: the object it is for, and its properties (type, required,
// array, allowed values and bounds). A property's type cannot change once saved; removing a saved
// property soft-removes it (`deleted: true`), as the API does. Constraints the form does not show are
// sent back as stored, since a definition sent replaces the stored one whole.

const RELATED_OBJECTS = ['customer', 'product', 'sku', 'order', 'order_item', 'campaign', 'voucher', 'promotion_tier', 'redemption', 'loyalty_tier', 'publication', 'earning_rule', 'reward'];

interface Row {
  name: string;
  /** The stored definition, for a property already saved. */
  stored: PropertyDefinition | null;
  type: string;
  required: boolean;
  array: boolean;
  /** Allowed values, comma-separated (strings, or numbers for type number). */
  allowed: string;
  min: string;
  max: string;
}

const rowOf = (name: string, d: PropertyDefinition): Row => ({
  name,
  stored: d,
  type: d.type,
  required: !d.optional,
  array: d.array,
  allowed: (d.eq ?? []).join(', '),
  min: String((d.type === 'number' ? d.gte : d.min_length) ?? ''),
  max: String((d.type === 'number' ? d.lte : d.max_length) ?? ''),
});

function definitionOf(row: Row): Record<string, unknown> {
  const { deleted: _deleted, ...stored } = row.stored ?? ({} as Partial<PropertyDefinition>);
  const number = (text: string) => (text.trim() === '' ? null : Number(text));
  const allowed = row.allowed
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');
  const def: Record<string, unknown> = { ...stored, type: row.type, optional: !row.required, array: row.array, eq: allowed.length > 0 ? (row.type === 'number' ? allowed.map(Number) : allowed) : null };
  if (row.type === 'string') Object.assign(def, { min_length: number(row.min), max_length: number(row.max) });
  if (row.type === 'number') Object.assign(def, { gte: number(row.min), lte: number(row.max) });
  return def;
}

function SchemaForm({ stored }: { stored: MetadataSchema | null }) {
  const navigate = useNavigate();
  const client = useQueryClient();
  const can = useCan();
  const base = useSchemasBase();
  const [relatedObject, setRelatedObject] = useState(stored?.related_object ?? '');
  const [definedOnly, setDefinedOnly] = useState(stored?.allow_defined_only ?? false);
  const [rows, setRows] = useState<Row[]>(
    stored
      ? Object.entries(stored.properties)
          .filter(([, d]) => !d.deleted)
          .map(([name, d]) => rowOf(name, d))
      : [],
  );
  const [removed, setRemoved] = useState<string[]>([]);
  const form = useFormSubmit({ related: 'related_object', properties: 'properties' });
  // A role that may only read sees the schema without the means to change it.
  const canSave = stored ? can('PUT', `${SCHEMAS_ROUTE}/:metadataSchemaId`) : can('POST', SCHEMAS_ROUTE);
  const update = (index: number, patch: Partial<Row>) => setRows(rows.map((r, i) => (i === index ? { ...r, ...patch } : r)));

  const save = form.submit(async () => {
    const names = rows.map((r) => r.name.trim());
    if (names.some((n) => n === '')) throw new Error('Name every property');
    if (new Set(names).size !== names.length) throw new Error('Two properties have the same name');
    const properties: Record<string, unknown> = Object.fromEntries(rows.map((r) => [r.name.trim(), definitionOf(r)]));
    for (const name of removed) properties[name] = { deleted: true };
    const schema = stored
      ? await api<MetadataSchema>('PUT', `${base}/${stored.id}`, { allow_defined_only: definedOnly, properties })
      : await api<MetadataSchema>('POST', base, { related_object: relatedObject.trim(), allow_defined_only: definedOnly, properties });
    await client.invalidateQueries({ queryKey: ['metadata-schemas'] });
    await client.invalidateQueries({ queryKey: ['metadata-schema', schema.id] });
    notifyDone(`Schema for ${schema.related_object} saved`);
    void navigate('/metadata-schemas');
  });

  const remove = () =>
    stored &&
    confirmThen({
      title: `Delete the ${stored.related_object} schema?`,
      body: 'Its definitions go; metadata already stored on objects stays as it is.',
      confirm: 'Delete schema',
      done: `Schema for ${stored.related_object} deleted`,
      failed: 'The schema was not deleted',
      action: async () => {
        await api('DELETE', `${base}/${stored.id}`);
        await client.invalidateQueries({ queryKey: ['metadata-schemas'] });
        void navigate('/metadata-schemas');
      },
    });

  return (
    <form onSubmit={(e) => void save(e)}>
      <Card withBorder>
        <Stack>
          {stored ? (
            <Text size="sm">
              Properties of <b>{stored.related_object}</b> metadata
            </Text>
          ) : (
            <Autocomplete label="Object" description="A built-in object or a name of your own" required data={RELATED_OBJECTS} value={relatedObject} onChange={setRelatedObject} error={form.errorFor('related')} />
          )}
          <Switch label="Refuse metadata properties not defined here" checked={definedOnly} onChange={(e) => setDefinedOnly(e.currentTarget.checked)} />
          <Title order={2} size="h6">
            Properties
          </Title>
          {rows.length === 0 && (
            <Text size="sm" c="dimmed">
              No properties yet.
            </Text>
          )}
          {rows.map((row, index) => (
            <Card key={index} withBorder padding="xs" data-testid={`property-${index}`}>
              <Group gap="xs" align="flex-end" wrap="wrap">
                <TextInput label="Name" aria-label={`Property ${index + 1} name`} value={row.name} disabled={row.stored !== null} onChange={(e) => update(index, { name: e.currentTarget.value })} w={160} />
                <Select
                  label="Type"
                  aria-label={`Property ${index + 1} type`}
                  data={[...METADATA_TYPES]}
                  value={row.type}
                  allowDeselect={false}
                  disabled={row.stored !== null}
                  onChange={(value) => update(index, { type: value ?? row.type })}
                  w={130}
                />
                <Checkbox label="Required" aria-label={`Property ${index + 1} required`} checked={row.required} onChange={(e) => update(index, { required: e.currentTarget.checked })} mb={8} />
                <Checkbox label="List of values" aria-label={`Property ${index + 1} list`} checked={row.array} onChange={(e) => update(index, { array: e.currentTarget.checked })} mb={8} />
                {(row.type === 'string' || row.type === 'number') && (
                  <>
                    <TextInput label="Allowed values" aria-label={`Property ${index + 1} allowed values`} placeholder="any" value={row.allowed} onChange={(e) => update(index, { allowed: e.currentTarget.value })} w={160} />
                    <TextInput label={row.type === 'string' ? 'Min length' : 'At least'} aria-label={`Property ${index + 1} minimum`} value={row.min} onChange={(e) => update(index, { min: e.currentTarget.value })} w={90} />
                    <TextInput label={row.type === 'string' ? 'Max length' : 'At most'} aria-label={`Property ${index + 1} maximum`} value={row.max} onChange={(e) => update(index, { max: e.currentTarget.value })} w={90} />
                  </>
                )}
                <ActionIcon
                  variant="subtle"
                  color="red"
                  mb={6}
                  display={canSave ? undefined : 'none'}
                  aria-label={`Remove property ${index + 1}`}
                  onClick={() => {
                    if (row.stored) setRemoved([...removed, row.name]);
                    setRows(rows.filter((_, i) => i !== index));
                  }}
                >
                  ✕
                </ActionIcon>
              </Group>
            </Card>
          ))}
          <Group display={canSave ? undefined : 'none'}>
            <Button variant="light" size="xs" onClick={() => setRows([...rows, { name: '', stored: null, type: 'string', required: false, array: false, allowed: '', min: '', max: '' }])}>
              Add property
            </Button>
          </Group>
          {form.errorFor('properties') && (
            <Text size="sm" c="red">
              {form.errorFor('properties')}
            </Text>
          )}
          {form.formError !== null && <ErrorAlert error={form.formError} title="The schema was not saved" />}
          <Group justify="space-between">
            <Group>
              {canSave && (
                <Button type="submit" loading={form.busy}>
                  {stored ? 'Save schema' : 'Create schema'}
                </Button>
              )}
              <Button variant="default" component={Link} to="/metadata-schemas">
                Cancel
              </Button>
            </Group>
            {stored && can('DELETE', `${SCHEMAS_ROUTE}/:metadataSchemaId`) && (
              <Button color="red" variant="light" onClick={remove}>
                Delete schema
              </Button>
            )}
          </Group>
        </Stack>
      </Card>
    </form>
  );
}

export function NewMetadataSchemaPage() {
  return (
    <>
      <PageHeader title="New metadata schema" />
      <SchemaForm stored={null} />
    </>
  );
}

export function MetadataSchemaPage() {
  const { schemaId = '' } = useParams();
  const base = useSchemasBase();
  const schema = useQuery({ queryKey: ['metadata-schema', schemaId], queryFn: () => api<MetadataSchema>('GET', `${base}/${encodeURIComponent(schemaId)}`) });
  if (schema.isPending) return <Loader aria-label="Loading schema" />;
  if (schema.isError) return <ErrorAlert error={schema.error} title="Schema not found" />;
  return (
    <>
      <PageHeader title={`Metadata schema: ${schema.data.related_object}`} />
      <SchemaForm key={schema.data.id} stored={schema.data} />
    </>
  );
}
