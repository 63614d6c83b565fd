import { Button, Group, SimpleGrid, Stack, Text, TextInput, Textarea } from '@mantine/core';
import { useState } from 'react';
import { api } from '../../api/client.ts';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { useFormSubmit } from '../../components/forms.tsx';
import { notifyDone } from '../../components/notify.ts';
import { customerLabel, customerPath, type Address, type Customer } from './types.ts';

// Creating a customer (POST /v1/customers) or changing one (PUT /v1/customers/{id}). A field left empty is
// sent as null, which clears it; the source_id is the merchant's key and is set when she is created.

const ADDRESS: readonly [keyof Address, string][] = [
  ['line_1', 'Address line 1'],
  ['line_2', 'Address line 2'],
  ['postal_code', 'Postal code'],
  ['city', 'City'],
  ['state', 'State'],
  ['country', 'Country'],
];

type Fields = Record<'name' | 'email' | 'phone' | 'source_id' | 'description' | keyof Address, string>;

function initialFields(c?: Customer): Fields {
  const address = c?.address;
  return {
    name: c?.name ?? '',
    email: c?.email ?? '',
    phone: c?.phone ?? '',
    source_id: c?.source_id ?? '',
    description: c?.description ?? '',
    line_1: address?.line_1 ?? '',
    line_2: address?.line_2 ?? '',
    postal_code: address?.postal_code ?? '',
    city: address?.city ?? '',
    state: address?.state ?? '',
    country: address?.country ?? '',
  };
}

const orNull = (text: string) => (text.trim() === '' ? null : text.trim());

/** The metadata box holds a JSON object; anything else is refused here, before the API sees it. */
function parseMetadata(text: string): Record<string, unknown> | string {
  if (text.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // falls through to the message
  }
  return 'Metadata must be a JSON object, like {"tier": "gold"}';
}

export function CustomerForm({ customer, onSaved }: { customer?: Customer; onSaved: (c: Customer) => void }) {
  const [fields, setFields] = useState<Fields>(() => initialFields(customer));
  const [metadata, setMetadata] = useState(() => (customer && Object.keys(customer.metadata).length > 0 ? JSON.stringify(customer.metadata, null, 2) : ''));
  const [metadataError, setMetadataError] = useState<string | null>(null);
  const form = useFormSubmit({
    name: 'name',
    email: 'email',
    phone: 'phone',
    source_id: 'source_id',
    description: 'description',
    metadata: 'metadata',
    line_1: 'address.line_1',
    line_2: 'address.line_2',
    postal_code: 'address.postal_code',
    city: 'address.city',
    state: 'address.state',
    country: 'address.country',
  });
  const set = (key: keyof Fields) => (e: React.ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => setFields({ ...fields, [key]: e.currentTarget.value });
  const input = (key: keyof Fields, label: string, extra: Record<string, unknown> = {}) => (
    <TextInput label={label} value={fields[key]} onChange={set(key)} error={form.errorFor(key)} maxLength={key === 'source_id' ? 255 : 1000} {...extra} />
  );

  const submit = form.submit(async () => {
    const parsed = parseMetadata(metadata);
    setMetadataError(typeof parsed === 'string' ? parsed : null);
    if (typeof parsed === 'string') return;
    const address = Object.fromEntries(ADDRESS.map(([key]) => [key, orNull(fields[key])]));
    const body = {
      name: orNull(fields.name),
      email: orNull(fields.email),
      phone: orNull(fields.phone),
      description: orNull(fields.description),
      address: Object.values(address).every((v) => v === null) ? null : address,
      metadata: parsed,
    };
    const saved = customer
      ? await api<Customer>('PUT', customerPath(customer.id), body)
      : await api<Customer>('POST', '/v1/customers', { ...body, source_id: orNull(fields.source_id) });
    notifyDone(customer ? `Saved ${customerLabel(saved)}` : `Created ${customerLabel(saved)}`);
    onSaved(saved);
  });

  return (
    <form onSubmit={(e) => void submit(e)} aria-label={customer ? 'Edit customer' : 'New customer'}>
      <Stack>
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          {input('name', 'Name', { 'data-autofocus': true })}
          {customer ? (
            <TextInput label="Source id" value={customer.source_id ?? '—'} readOnly description="Set when the customer was created" />
          ) : (
            input('source_id', 'Source id', { description: 'Your own identifier; optional, unique' })
          )}
          {input('email', 'E-mail', { type: 'email' })}
          {input('phone', 'Phone', { type: 'tel' })}
        </SimpleGrid>
        {input('description', 'Description')}
        <Text size="sm" fw={500}>
          Address
        </Text>
        <SimpleGrid cols={{ base: 1, sm: 2 }}>{ADDRESS.map(([key, label]) => <div key={key}>{input(key, label)}</div>)}</SimpleGrid>
        <Textarea
          label="Metadata (JSON)"
          value={metadata}
          onChange={(e) => {
            setMetadata(e.currentTarget.value);
            setMetadataError(null);
          }}
          autosize
          minRows={3}
          maxRows={12}
          styles={{ input: { fontFamily: 'monospace' } }}
          error={metadataError ?? form.errorFor('metadata')}
        />
        {form.formError !== null && <ErrorAlert error={form.formError} title={customer ? 'Not saved' : 'Not created'} />}
        <Group>
          <Button type="submit" loading={form.busy}>
            {customer ? 'Save' : 'Create customer'}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
