import { Badge, Button, Card, Code, Loader, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { api, listOf, withQuery } from '../../api/client.ts';
import { useCan } from '../../app/session.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { confirmThen } from '../../components/forms.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { Pager } from '../../components/Pager.tsx';
import { dateTime, money } from '../../components/format.ts';
import { notifyDone } from '../../components/notify.ts';
import { CATALOG_KEY, productLabel, skuLabel, type Product, type Sku } from './catalog.ts';
import { CollectionForm, type Collection } from './collections-form.tsx';

// Product collections: the list with a form for a new one, and one collection's members page by page
// (products, and SKUs with their product), with its deletion — which the API refuses while a validation
// rule uses the collection, and the page says so.

const LIMIT = 20;

const kindLabel = (c: Collection) => (c.type === 'STATIC' ? 'picked' : 'filter');

export function CollectionsPage() {
  const navigate = useNavigate();
  const client = useQueryClient();
  const can = useCan();
  const [params, setParams] = useSearchParams();
  const page = Number(params.get('page') ?? '1');
  const [creating, setCreating] = useState(false);
  const list = useQuery({
    queryKey: [CATALOG_KEY, 'collections', page],
    queryFn: async () => listOf<Collection>(await api('GET', withQuery('/v1/product-collections', { limit: LIMIT, page, order: '-created_at' }))),
  });
  return (
    <Stack>
      <PageHeader
        title="Product collections"
        description="Groups of products and SKUs that validation rules and discounts name."
        actions={
          <>
            <Button component={Link} to="/products" variant="subtle">
              All products
            </Button>
            {can('POST', '/v1/product-collections') && (
              <Button onClick={() => setCreating(!creating)} variant={creating ? 'default' : 'filled'}>
                {creating ? 'Close the form' : 'New collection'}
              </Button>
            )}
          </>
        }
      />
      {creating && (
        <CollectionForm
          onCreated={async (created) => {
            notifyDone(`Collection ${created.name} created`);
            await client.invalidateQueries({ queryKey: [CATALOG_KEY] });
            navigate(`/products/collections/${encodeURIComponent(created.id)}`);
          }}
        />
      )}
      <Card withBorder>
        {list.isPending && <Loader aria-label="Loading collections" />}
        <ErrorAlert error={list.error} />
        {list.data && (
          <>
            <DataTable columns={['Name', 'Kind', 'Members', 'Created']} minWidth={520} highlightOnHover>
              {list.data.items.map((c) => (
                <Table.Tr key={c.id} data-testid={`collection-row-${c.id}`}>
                  <Table.Td>
                    <Link to={`/products/collections/${encodeURIComponent(c.id)}`}>{c.name}</Link>
                  </Table.Td>
                  <Table.Td>
                    <Badge variant="light" color={c.type === 'STATIC' ? 'blue' : 'grape'}>
                      {kindLabel(c)}
                    </Badge>
                  </Table.Td>
                  <Table.Td>{c.type === 'STATIC' ? (c.products?.length ?? 0) : 'what matches'}</Table.Td>
                  <Table.Td>{dateTime(c.created_at)}</Table.Td>
                </Table.Tr>
              ))}
            </DataTable>
            {list.data.items.length === 0 && <Text c="dimmed">No collections yet.</Text>}
            <Pager page={page} limit={LIMIT} count={list.data.items.length} total={list.data.total} onPage={(p) => setParams({ page: String(p) })} />
          </>
        )}
      </Card>
    </Stack>
  );
}

type Member = (Product & { object: 'product' }) | (Sku & { object: 'sku'; product: Pick<Product, 'id' | 'name' | 'source_id' | 'price'> });

export function CollectionPage() {
  const { collectionId = '' } = useParams();
  const navigate = useNavigate();
  const client = useQueryClient();
  const can = useCan();
  const [page, setPage] = useState(1);
  const base = `/v1/product-collections/${encodeURIComponent(collectionId)}`;
  const collection = useQuery({ queryKey: [CATALOG_KEY, 'collection', collectionId], queryFn: () => api<Collection>('GET', base) });
  const members = useQuery({
    queryKey: [CATALOG_KEY, 'collection-members', collectionId, page],
    queryFn: async () => listOf<Member>(await api('GET', withQuery(`${base}/products`, { limit: LIMIT, page }))),
  });

  if (collection.isPending) return <Loader aria-label="Loading collection" />;
  if (collection.isError) return <ErrorAlert error={collection.error} title="Collection not found" />;
  const c = collection.data;
  const remove = () =>
    confirmThen({
      title: `Delete the collection “${c.name}”?`,
      body: `${c.name} is deleted for good; its products and SKUs stay in the catalog.`,
      confirm: 'Delete collection',
      action: async () => {
        await api('DELETE', base);
        await client.invalidateQueries({ queryKey: [CATALOG_KEY] });
        navigate('/products/collections');
      },
      done: `Collection ${c.name} deleted`,
      failed: `The collection ${c.name} was not deleted`,
    });

  return (
    <Stack>
      <PageHeader
        title={c.name}
        description={c.type === 'STATIC' ? 'Picked products and SKUs' : 'Every live product matching the filter'}
        actions={
          <>
            <Button component={Link} to="/products/collections" variant="subtle">
              All collections
            </Button>
            {can('DELETE', '/v1/product-collections/:productCollectionId') && (
              <Button color="red" variant="light" onClick={remove}>
                Delete…
              </Button>
            )}
          </>
        }
      />
      {c.filter && (
        <Card withBorder>
          <Title order={2} size="h5" mb="xs">
            Filter
          </Title>
          <Code block>{JSON.stringify(c.filter, null, 2)}</Code>
        </Card>
      )}
      <Card withBorder>
        <Title order={2} size="h5" mb="xs">
          Members
        </Title>
        {members.isPending && <Loader size="sm" aria-label="Loading members" />}
        <ErrorAlert error={members.error} />
        {members.data && (
          <>
            <DataTable columns={['Product', 'SKU', 'Price', 'Source id']} minWidth={520}>
              {members.data.items.map((m) => {
                const product = m.object === 'sku' ? m.product : m;
                return (
                  <Table.Tr key={m.id} data-testid={`member-${m.id}`}>
                    <Table.Td>
                      <Link to={`/products/${encodeURIComponent(product.id)}`}>{productLabel(product)}</Link>
                    </Table.Td>
                    <Table.Td>{m.object === 'sku' ? skuLabel(m) : 'whole product'}</Table.Td>
                    <Table.Td>{m.object === 'sku' ? money(m.price ?? m.product.price, m.currency ?? '') : money(m.price)}</Table.Td>
                    <Table.Td>{m.source_id ?? '—'}</Table.Td>
                  </Table.Tr>
                );
              })}
            </DataTable>
            {members.data.items.length === 0 && <Text c="dimmed">{c.type === 'STATIC' ? 'Nothing in it (deleted products leave it).' : 'No live product matches the filter now.'}</Text>}
            <Pager page={page} limit={LIMIT} count={members.data.items.length} total={members.data.total} onPage={setPage} />
          </>
        )}
      </Card>
    </Stack>
  );
}
