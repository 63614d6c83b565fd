import { Anchor, Button, Card, Group, Loader, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, listOf, withQuery } from '../../api/client.ts';
import { useCan } from '../../app/session.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { confirmThen } from '../../components/forms.tsx';
import { Json } from '../../components/Json.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { Pager } from '../../components/Pager.tsx';
import { dateTime, money } from '../../components/format.ts';
import { notifyDone } from '../../components/notify.ts';
import { CATALOG_KEY, productLabel, skuLabel, type Product, type Sku } from './catalog.ts';
import { ProductForm, SkuForm } from './catalog-forms.tsx';

// One product: what it is, a form to change it, its deletion (to the bin, with its SKUs), and its SKUs
// page by page, each changed or deleted in place.

const SKU_LIMIT = 20;

const attributesText = (attributes: Record<string, unknown>) =>
  Object.entries(attributes)
    .map(([name, value]) => `${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(', ') || '—';

function Skus({ product }: { product: Product }) {
  const client = useQueryClient();
  const can = useCan();
  const [page, setPage] = useState(1);
  const [editing, setEditing] = useState<Sku | 'new' | null>(null);
  const base = `/v1/products/${encodeURIComponent(product.id)}/skus`;
  const skus = useQuery({
    queryKey: [CATALOG_KEY, 'skus', product.id, page],
    queryFn: async () => listOf<Sku>(await api('GET', withQuery(base, { limit: SKU_LIMIT, page })), 'skus'),
  });
  const mayChange = can('POST', '/v1/products/:productId/skus');
  const mayDelete = can('DELETE', '/v1/products/:productId/skus/:skuId');
  const refresh = () => client.invalidateQueries({ queryKey: [CATALOG_KEY] });
  const remove = (sku: Sku) =>
    confirmThen({
      title: `Delete the SKU “${skuLabel(sku)}”?`,
      body: `The SKU ${skuLabel(sku)}${sku.source_id ? ` (${sku.source_id})` : ''} of ${productLabel(product)} goes to the bin; its source_id is free at once.`,
      confirm: 'Delete SKU',
      action: async () => {
        await api('DELETE', `${base}/${encodeURIComponent(sku.id)}`);
        if (editing !== 'new' && editing?.id === sku.id) setEditing(null);
        await refresh();
      },
      done: `SKU ${skuLabel(sku)} deleted`,
      failed: `The SKU ${skuLabel(sku)} was not deleted`,
    });

  return (
    <Stack>
      <Card withBorder>
        <Group justify="space-between" mb="sm">
          <Title order={2} size="h5">
            SKUs
          </Title>
          {mayChange && (
            <Button size="xs" onClick={() => setEditing(editing === 'new' ? null : 'new')} variant={editing === 'new' ? 'default' : 'light'}>
              {editing === 'new' ? 'Close the form' : 'New SKU'}
            </Button>
          )}
        </Group>
        {skus.isPending && <Loader size="sm" aria-label="Loading SKUs" />}
        <ErrorAlert error={skus.error} />
        {skus.data && (
          <>
            <DataTable columns={['SKU', 'Source id', 'Price', 'Attributes', '']} minWidth={620}>
              {skus.data.items.map((sku) => (
                <Table.Tr key={sku.id} data-testid={`sku-row-${sku.id}`}>
                  <Table.Td>{skuLabel(sku)}</Table.Td>
                  <Table.Td>{sku.source_id ?? '—'}</Table.Td>
                  <Table.Td>{money(sku.price, sku.currency ?? '')}</Table.Td>
                  <Table.Td>{attributesText(sku.attributes)}</Table.Td>
                  <Table.Td>
                    <Group gap={4} justify="flex-end" wrap="nowrap">
                      {mayChange && (
                        <Button size="compact-xs" variant="default" onClick={() => setEditing(sku)} aria-label={`Edit SKU ${skuLabel(sku)}`}>
                          Edit
                        </Button>
                      )}
                      {mayDelete && (
                        <Button size="compact-xs" variant="light" color="red" onClick={() => remove(sku)} aria-label={`Delete SKU ${skuLabel(sku)}`}>
                          Delete
                        </Button>
                      )}
                    </Group>
                  </Table.Td>
                </Table.Tr>
              ))}
            </DataTable>
            {skus.data.items.length === 0 && <Text c="dimmed">No SKUs: orders name the product itself.</Text>}
            {(skus.data.total ?? 0) > SKU_LIMIT && <Pager page={page} limit={SKU_LIMIT} count={skus.data.items.length} total={skus.data.total} onPage={setPage} />}
          </>
        )}
      </Card>
      {editing !== null && (
        <SkuForm
          // A new form for each SKU, so its fields start from that SKU.
          key={editing === 'new' ? 'new' : editing.id}
          product={product}
          {...(editing !== 'new' ? { sku: editing } : {})}
          onSaved={async (saved) => {
            notifyDone(`SKU ${skuLabel(saved)} ${editing === 'new' ? 'created' : 'saved'}`);
            setEditing(null);
            await refresh();
          }}
        />
      )}
    </Stack>
  );
}

export function ProductPage() {
  const { productId = '' } = useParams();
  const navigate = useNavigate();
  const client = useQueryClient();
  const can = useCan();
  const [editing, setEditing] = useState(false);
  const product = useQuery({ queryKey: [CATALOG_KEY, 'product', productId], queryFn: () => api<Product>('GET', `/v1/products/${encodeURIComponent(productId)}`) });

  if (product.isPending) return <Loader aria-label="Loading product" />;
  if (product.isError) return <ErrorAlert error={product.error} title="Product not found" />;
  const p = product.data;
  const skuCount = p.skus?.total ?? 0;
  const remove = () =>
    confirmThen({
      title: `Delete the product “${productLabel(p)}”?`,
      body: `${productLabel(p)}${p.source_id ? ` (${p.source_id})` : ''} and its ${skuCount === 1 ? 'one SKU' : `${skuCount} SKUs`} go to the bin; their source_ids are free at once.`,
      confirm: 'Delete product',
      action: async () => {
        await api('DELETE', `/v1/products/${encodeURIComponent(p.id)}`);
        await client.invalidateQueries({ queryKey: [CATALOG_KEY] });
        navigate('/products');
      },
      done: `Product ${productLabel(p)} deleted`,
      failed: `The product ${productLabel(p)} was not deleted`,
    });

  return (
    <Stack>
      <PageHeader
        title={productLabel(p)}
        description={p.source_id ? `Source id ${p.source_id}` : undefined}
        actions={
          <>
            <Button component={Link} to="/products" variant="subtle">
              All products
            </Button>
            {can('POST', '/v1/products') && (
              <Button variant={editing ? 'default' : 'filled'} onClick={() => setEditing(!editing)}>
                {editing ? 'Close the form' : 'Edit product'}
              </Button>
            )}
            {can('DELETE', '/v1/products/:productId') && (
              <Button color="red" variant="light" onClick={remove}>
                Delete…
              </Button>
            )}
          </>
        }
      />
      {editing ? (
        <ProductForm
          product={p}
          onSaved={async (saved) => {
            notifyDone(`Product ${productLabel(saved)} saved`);
            setEditing(false);
            await client.invalidateQueries({ queryKey: [CATALOG_KEY] });
          }}
        />
      ) : (
        <Card withBorder>
          <Table variant="vertical" layout="fixed" data-testid="product-facts">
            <Table.Tbody>
              <Table.Tr>
                <Table.Th w={110}>Price</Table.Th>
                <Table.Td data-testid="product-price">{money(p.price)}</Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th>Attributes</Table.Th>
                <Table.Td>{p.attributes.join(', ') || '—'}</Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th>Image</Table.Th>
                <Table.Td style={{ overflowWrap: 'anywhere' }}>
                  {/* A link, not the picture: the console's content policy loads images from its own origin only. */}
                  {p.image_url ? (
                    <Anchor href={p.image_url} target="_blank" rel="noreferrer" size="sm">
                      {p.image_url}
                    </Anchor>
                  ) : (
                    '—'
                  )}
                </Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th>Id</Table.Th>
                <Table.Td style={{ overflowWrap: 'anywhere' }}>{p.id}</Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th>Created</Table.Th>
                <Table.Td>{dateTime(p.created_at)}</Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th>Changed</Table.Th>
                <Table.Td>{dateTime(p.updated_at)}</Table.Td>
              </Table.Tr>
              {Object.keys(p.metadata).length > 0 && (
                <Table.Tr>
                  <Table.Th>Metadata</Table.Th>
                  <Table.Td>
                    <Json value={p.metadata} label="Metadata" />
                  </Table.Td>
                </Table.Tr>
              )}
            </Table.Tbody>
          </Table>
        </Card>
      )}
      <Skus product={p} />
    </Stack>
  );
}
