import { Button, Card, Group, Loader, Stack, Table, Text, TextInput } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { api, listOf, withQuery } from '../../api/client.ts';
import { useCan } from '../../app/session.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { Pager } from '../../components/Pager.tsx';
import { dateTime, money } from '../../components/format.ts';
import { notifyDone } from '../../components/notify.ts';
import { CATALOG_KEY, productLabel, type Product } from './catalog.ts';
import { ProductForm } from './catalog-forms.tsx';

// The product catalog: found by name (or opened by id or source_id), page by page, newest first, and a
// new product made here; a product's own page holds its SKUs.

const LIMIT = 20;

export function ProductsPage() {
  const navigate = useNavigate();
  const client = useQueryClient();
  const can = useCan();
  const [params, setParams] = useSearchParams();
  const page = Number(params.get('page') ?? '1');
  const name = params.get('name') ?? '';
  const [nameInput, setNameInput] = useState(name);
  const [open, setOpen] = useState('');
  const [creating, setCreating] = useState(false);
  const list = useQuery({
    queryKey: [CATALOG_KEY, 'products', page, name],
    queryFn: async () => listOf<Product>(await api('GET', withQuery('/v1/products', { limit: LIMIT, page, name, order: '-created_at' })), 'products'),
  });
  const set = (patch: Record<string, string>) => {
    const next = new URLSearchParams(params);
    for (const [k, v] of Object.entries(patch)) (v === '' ? next.delete(k) : next.set(k, v));
    setParams(next);
  };
  return (
    <Stack>
      <PageHeader
        title="Products"
        description="What your shop sells, as orders, collections and validation rules name it."
        actions={
          <>
            <Button component={Link} to="/products/collections" variant="default">
              Collections
            </Button>
            {can('POST', '/v1/products') && (
              <Button onClick={() => setCreating(!creating)} variant={creating ? 'default' : 'filled'}>
                {creating ? 'Close the form' : 'New product'}
              </Button>
            )}
          </>
        }
      />
      {creating && (
        <ProductForm
          onSaved={async (saved) => {
            notifyDone(`Product ${productLabel(saved)} created`);
            await client.invalidateQueries({ queryKey: [CATALOG_KEY] });
            navigate(`/products/${encodeURIComponent(saved.id)}`);
          }}
        />
      )}
      <Card withBorder>
        <Group mb="sm" align="flex-end" wrap="wrap">
          <form
            onSubmit={(e) => {
              e.preventDefault();
              set({ name: nameInput.trim(), page: '' });
            }}
          >
            <Group align="flex-end" gap="xs">
              <TextInput label="Name contains" value={nameInput} onChange={(e) => setNameInput(e.currentTarget.value)} w={220} />
              <Button type="submit" variant="default">
                Search
              </Button>
            </Group>
          </form>
          <form
            onSubmit={(e) => {
              e.preventDefault();
              if (open.trim()) navigate(`/products/${encodeURIComponent(open.trim())}`);
            }}
          >
            <TextInput label="Open by id or source_id" value={open} onChange={(e) => setOpen(e.currentTarget.value)} w={220} />
          </form>
        </Group>
        {list.isPending && <Loader aria-label="Loading products" />}
        <ErrorAlert error={list.error} />
        {list.data && (
          <>
            <DataTable columns={['Name', 'Source id', 'Price', 'SKUs', 'Created']} minWidth={600} highlightOnHover>
              {list.data.items.map((p) => (
                <Table.Tr key={p.id} data-testid={`product-row-${p.id}`}>
                  <Table.Td>
                    <Link to={`/products/${encodeURIComponent(p.id)}`}>{productLabel(p)}</Link>
                  </Table.Td>
                  <Table.Td>{p.source_id ?? '—'}</Table.Td>
                  <Table.Td>{money(p.price)}</Table.Td>
                  <Table.Td>{p.skus?.total ?? 0}</Table.Td>
                  <Table.Td>{dateTime(p.created_at)}</Table.Td>
                </Table.Tr>
              ))}
            </DataTable>
            {list.data.items.length === 0 && <Text c="dimmed">{name ? `No product's name contains “${name}”.` : 'No products yet.'}</Text>}
            <Pager page={page} limit={LIMIT} count={list.data.items.length} total={list.data.total} onPage={(p) => set({ page: String(p) })} />
          </>
        )}
      </Card>
    </Stack>
  );
}
