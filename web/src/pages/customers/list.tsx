import { Button, Card, Loader, Modal, Table, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { api, listOf, withQuery } from '../../api/client.ts';
import { useCan } from '../../app/session.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { Pager } from '../../components/Pager.tsx';
import { dateTime } from '../../components/format.ts';
import { CustomerForm } from './form.tsx';
import { customerLabel, type Customer } from './types.ts';

// Customers: one box finds a person by the start of any word of her name, her e-mail, phone number or
// source_id (GET /v1/customers?q=, index-backed on the server) as the agent types; Enter opens her page
// when only she matches. The search stays in the address, so the back button returns to it.

const LIMIT = 20;
const TYPING_PAUSE_MS = 300;

export function CustomersPage() {
  const navigate = useNavigate();
  const can = useCan();
  const client = useQueryClient();
  const [params, setParams] = useSearchParams();
  const page = Number(params.get('page') ?? '1');
  const q = params.get('q') ?? '';
  const [typed, setTyped] = useState(q);
  const [settled] = useDebouncedValue(typed, TYPING_PAUSE_MS);
  const [creating, setCreating] = useState(false);

  const search = (text: string) => {
    const next = new URLSearchParams(params);
    if (text.trim() === '') next.delete('q');
    else next.set('q', text.trim());
    next.delete('page');
    setParams(next, { replace: true });
  };
  // The back button changes the address: the box follows it.
  useEffect(() => {
    // What the debounce itself just wrote is not a change from outside (she may be typing on).
    if (q !== typed.trim() && q !== settled.trim()) setTyped(q);
  }, [q]);
  // Typing searches once the agent pauses; Enter searches at once.
  useEffect(() => {
    if (settled.trim() !== q) search(settled);
  }, [settled]);

  const fetchPage = (p: number, text: string) => async () => listOf<Customer>(await api('GET', withQuery('/v1/customers', { limit: LIMIT, page: p, q: text })), 'customers');
  const list = useQuery({ queryKey: ['customers', page, q], placeholderData: keepPreviousData, queryFn: fetchPage(page, q) });
  /** Enter: when what was typed finds exactly one customer, her page opens (an id, an e-mail, a source id). */
  const searchOrOpen = async () => {
    const text = typed.trim();
    search(text);
    if (text === '') return;
    const found = await client.fetchQuery({ queryKey: ['customers', 1, text], queryFn: fetchPage(1, text) });
    const [only] = found.items;
    if (found.total === 1 && only) await navigate(`/customers/${only.id}`);
  };
  const setPage = (p: number) => {
    const next = new URLSearchParams(params);
    next.set('page', String(p));
    setParams(next);
  };

  return (
    <>
      <PageHeader
        title="Customers"
        actions={can('POST', '/v1/customers') && <Button onClick={() => setCreating(true)}>New customer</Button>}
      />
      <Card withBorder>
        <form
          role="search"
          onSubmit={(e) => {
            e.preventDefault();
            void searchOrOpen();
          }}
        >
          <TextInput
            label="Find a customer"
            description="Start of a name, e-mail, phone number or source id"
            placeholder="alice, alice@…, +44 7700…, CRM-1…"
            value={typed}
            onChange={(e) => setTyped(e.currentTarget.value)}
            maxLength={255}
            mb="sm"
            rightSection={list.isFetching ? <Loader size="xs" aria-label="Searching" /> : null}
          />
        </form>
        {list.isPending && <Loader aria-label="Loading customers" />}
        <ErrorAlert error={list.error} />
        {list.data && (
          <>
            <DataTable columns={['Name', 'E-mail', 'Phone', 'Source id', 'Created']} minWidth={680} highlightOnHover>
              {list.data.items.map((c) => (
                <Table.Tr key={c.id}>
                  <Table.Td>
                    <Link to={`/customers/${c.id}`}>{customerLabel(c)}</Link>
                  </Table.Td>
                  <Table.Td>{c.email ?? '—'}</Table.Td>
                  <Table.Td>{c.phone ?? '—'}</Table.Td>
                  <Table.Td>{c.source_id ?? '—'}</Table.Td>
                  <Table.Td>{dateTime(c.created_at)}</Table.Td>
                </Table.Tr>
              ))}
            </DataTable>
            {list.data.items.length === 0 && <Text c="dimmed">{q ? `No customer's name, e-mail, phone or source id starts with “${q}”.` : 'No customers yet.'}</Text>}
            <Pager page={page} limit={LIMIT} count={list.data.items.length} total={list.data.total} onPage={setPage} />
          </>
        )}
      </Card>
      <Modal opened={creating} onClose={() => setCreating(false)} title="New customer" size="lg">
        <CustomerForm onSaved={(c) => navigate(`/customers/${c.id}`)} />
      </Modal>
    </>
  );
}
