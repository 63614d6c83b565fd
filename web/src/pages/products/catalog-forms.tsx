import { Group, JsonInput, NumberInput, Stack, TagsInput, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import { api } from '../../api/client.ts';
import { FormCard, useFormSubmit } from '../../components/forms.tsx';
import { toMinor } from '../../components/format.ts';
import { productLabel, skuLabel, type Product, type Sku } from './catalog.ts';

// The product and SKU forms, for creating one and for changing one. A change is sent as the API's upsert
// with the id (POST /v1/products with `id`), the one request that also renames the source_id; members the
// form shows are all sent, so what the person cleared is cleared.

const PRODUCT_FIELDS = { name: 'name', sourceId: 'source_id', price: 'price', attributes: 'attributes', imageUrl: 'image_url', metadata: 'metadata' };
const SKU_FIELDS = { sku: 'sku', sourceId: 'source_id', price: 'price', currency: 'currency', attributes: 'attributes', imageUrl: 'image_url', metadata: 'metadata' };

/** The metadata typed as JSON: an object, or a readable refusal (shown under the form). */
function parseMetadata(text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error('Metadata is not valid JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error('Metadata must be a JSON object, like {"brand": "Acme"}');
  return value as Record<string, unknown>;
}

const metadataText = (metadata: Record<string, unknown> | undefined) => (metadata && Object.keys(metadata).length > 0 ? JSON.stringify(metadata, null, 2) : '');
const majorOf = (minor: number | null | undefined) => (minor === null || minor === undefined ? '' : minor / 100);
const orNull = (text: string) => (text.trim() === '' ? null : text.trim());

function MetadataInput({ value, onChange, error }: { value: string; onChange: (value: string) => void; error: string | undefined }) {
  return (
    <JsonInput
      label="Metadata"
      description="A JSON object"
      placeholder='{"brand": "Acme"}'
      value={value}
      onChange={onChange}
      validationError="Not valid JSON"
      autosize
      minRows={2}
      maxRows={10}
      error={error}
    />
  );
}

export function ProductForm({ product, onSaved }: { product?: Product; onSaved: (saved: Product) => Promise<unknown> | void }) {
  const [form, setForm] = useState({
    name: product?.name ?? '',
    sourceId: product?.source_id ?? '',
    price: majorOf(product?.price) as number | string,
    attributes: product?.attributes ?? [],
    imageUrl: product?.image_url ?? '',
    metadata: metadataText(product?.metadata),
  });
  const { busy, errorFor, formError, submit } = useFormSubmit(PRODUCT_FIELDS);
  const save = submit(async () => {
    const body = {
      ...(product ? { id: product.id } : {}),
      name: orNull(form.name),
      source_id: orNull(form.sourceId),
      price: toMinor(form.price),
      attributes: form.attributes,
      image_url: orNull(form.imageUrl),
      metadata: parseMetadata(form.metadata),
    };
    const saved = await api<Product>('POST', '/v1/products', body);
    await onSaved(saved);
  });
  return (
    <FormCard
      title={product ? `Edit ${productLabel(product)}` : 'New product'}
      onSubmit={save}
      error={formError}
      errorTitle={product ? 'The product was not saved' : 'The product was not created'}
      submit={product ? 'Save product' : 'Create product'}
      busy={busy}
    >
      <Group align="flex-start" wrap="wrap">
        <TextInput label="Name" value={form.name} onChange={(e) => setForm({ ...form, name: e.currentTarget.value })} error={errorFor('name')} w={260} />
        <TextInput label="Source id" description="Your shop's id for it" value={form.sourceId} onChange={(e) => setForm({ ...form, sourceId: e.currentTarget.value })} error={errorFor('sourceId')} w={220} />
        <NumberInput label="Price" description="Major units" value={form.price} onChange={(price) => setForm({ ...form, price })} min={0} decimalScale={2} error={errorFor('price')} w={160} />
      </Group>
      <TagsInput
        label="Attributes"
        description="Names the SKUs give values for, e.g. color, size (Enter after each)"
        value={form.attributes}
        onChange={(attributes) => setForm({ ...form, attributes })}
        error={errorFor('attributes')}
      />
      <TextInput label="Image URL" placeholder="https://…" value={form.imageUrl} onChange={(e) => setForm({ ...form, imageUrl: e.currentTarget.value })} error={errorFor('imageUrl')} />
      <MetadataInput value={form.metadata} onChange={(metadata) => setForm({ ...form, metadata })} error={errorFor('metadata')} />
    </FormCard>
  );
}

export function SkuForm({ product, sku, onSaved }: { product: Product; sku?: Sku; onSaved: (saved: Sku) => Promise<unknown> | void }) {
  // The product's attribute names, and any the SKU holds that the product no longer names (kept as they are).
  const names = [...new Set([...product.attributes, ...Object.keys(sku?.attributes ?? {})])];
  const [form, setForm] = useState({
    sku: sku?.sku ?? '',
    sourceId: sku?.source_id ?? '',
    price: majorOf(sku?.price) as number | string,
    currency: sku?.currency ?? '',
    attributes: Object.fromEntries(names.map((name) => [name, sku?.attributes[name] === undefined ? '' : String(sku.attributes[name])])),
    imageUrl: sku?.image_url ?? '',
    metadata: metadataText(sku?.metadata),
  });
  const { busy, errorFor, formError, submit } = useFormSubmit(SKU_FIELDS);
  const save = submit(async () => {
    const body = {
      ...(sku ? { id: sku.id } : {}),
      sku: orNull(form.sku),
      source_id: orNull(form.sourceId),
      price: toMinor(form.price),
      currency: orNull(form.currency.toUpperCase()),
      attributes: Object.fromEntries(Object.entries(form.attributes).filter(([, value]) => value.trim() !== '')),
      image_url: orNull(form.imageUrl),
      metadata: parseMetadata(form.metadata),
    };
    const saved = await api<Sku>('POST', `/v1/products/${encodeURIComponent(product.id)}/skus`, body);
    await onSaved(saved);
  });
  return (
    <FormCard
      title={sku ? `Edit SKU ${skuLabel(sku)}` : `New SKU of ${productLabel(product)}`}
      onSubmit={save}
      error={formError}
      errorTitle={sku ? 'The SKU was not saved' : 'The SKU was not created'}
      submit={sku ? 'Save SKU' : 'Create SKU'}
      busy={busy}
    >
      <Group align="flex-start" wrap="wrap">
        <TextInput label="SKU name" value={form.sku} onChange={(e) => setForm({ ...form, sku: e.currentTarget.value })} error={errorFor('sku')} w={260} />
        <TextInput label="SKU source id" value={form.sourceId} onChange={(e) => setForm({ ...form, sourceId: e.currentTarget.value })} error={errorFor('sourceId')} w={200} />
        <NumberInput label="SKU price" description="Major units" value={form.price} onChange={(price) => setForm({ ...form, price })} min={0} decimalScale={2} error={errorFor('price')} w={140} />
        <TextInput label="Currency" description="e.g. EUR" value={form.currency} onChange={(e) => setForm({ ...form, currency: e.currentTarget.value })} maxLength={3} error={errorFor('currency')} w={100} />
      </Group>
      {names.length > 0 && (
        <Stack gap={4}>
          <Group align="flex-start" wrap="wrap">
            {names.map((name) => (
              <TextInput
                key={name}
                label={name}
                value={form.attributes[name] ?? ''}
                onChange={(e) => setForm({ ...form, attributes: { ...form.attributes, [name]: e.currentTarget.value } })}
                w={160}
              />
            ))}
          </Group>
          {errorFor('attributes') && (
            <Text size="xs" c="red">
              {errorFor('attributes')}
            </Text>
          )}
        </Stack>
      )}
      <TextInput label="SKU image URL" placeholder="https://…" value={form.imageUrl} onChange={(e) => setForm({ ...form, imageUrl: e.currentTarget.value })} error={errorFor('imageUrl')} />
      <MetadataInput value={form.metadata} onChange={(metadata) => setForm({ ...form, metadata })} error={errorFor('metadata')} />
    </FormCard>
  );
}
