import { Alert, Button, Group, Kbd, Loader, Modal, Stack, Text, TextInput, UnstyledButton } from '@mantine/core';
import { useDebouncedValue, useDisclosure } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState, type KeyboardEvent, type ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { api, ApiError, listOf, withQuery } from '../api/client.ts';
import { messageOf } from '../api/field-errors.ts';
import { useCan } from '../app/session.tsx';
import { money } from './format.ts';

// One box over customers, codes, campaigns and orders, opened from the header or with Ctrl+K / Cmd+K (or
// "/" when no field has focus). It asks the public API only, and only about what the role may read:
// customers by the start of a name word, e-mail, phone or source id (`q=`); codes and orders by their
// whole code, id or source id (the API has no prefix search for them); campaigns by part of their name,
// matched here in the newest hundred, because the API's name filter compares case-sensitively.

const TYPING_PAUSE_MS = 250;
const CAMPAIGNS_SCANNED = 100;

interface Result {
  key: string;
  to: string;
  label: ReactNode;
  detail: ReactNode;
}

interface Kind {
  title: string;
  results: Result[];
  pending: boolean;
  error: unknown;
  /** Said when nothing of this kind matched. */
  hint?: string;
}

interface CustomerHit {
  id: string;
  name: string | null;
  email: string | null;
  phone: string | null;
  source_id: string | null;
}
interface VoucherHit {
  code: string;
  campaign: string | null;
  type: string;
}
interface CampaignHit {
  id: string;
  name: string;
  campaign_type: string;
}
interface OrderHit {
  id: string;
  source_id: string | null;
  customer_id: string | null;
  amount: number | null;
  total_amount: number | null;
  status: string;
}

/** The object, or null when the API has none under that id (404). */
async function exact<T>(path: string): Promise<T | null> {
  try {
    return await api<T>('GET', path);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}

const words = (text: string) => text.replace(/_/g, ' ').toLowerCase().replace(/^./, (c) => c.toUpperCase());

/** The order's customer by name (the same cache entry customer links use). */
function OrderCustomer({ id }: { id: string }) {
  const customer = useQuery({
    queryKey: ['customer', id],
    staleTime: 60_000,
    retry: false,
    queryFn: () => api<CustomerHit>('GET', `/v1/customers/${encodeURIComponent(id)}`),
  });
  return <>{customer.data?.name ?? customer.data?.email ?? customer.data?.source_id ?? (customer.isPending ? '…' : id)}</>;
}

function useSearch(term: string): Kind[] {
  const can = useCan();
  const has = term !== '';
  const path = encodeURIComponent(term);
  const readsCustomers = can('GET', '/v1/customers');
  const readsCodes = can('GET', '/v1/vouchers/:code');
  const readsCampaigns = can('GET', '/v1/campaigns');
  const readsOrders = can('GET', '/v1/orders/:orderId');

  const customers = useQuery({
    queryKey: ['search', 'customers', term],
    enabled: has && readsCustomers,
    retry: false,
    queryFn: async () => listOf<CustomerHit>(await api('GET', withQuery('/v1/customers', { q: term, limit: 5 })), 'customers').items,
  });
  const code = useQuery({
    queryKey: ['search', 'code', term],
    enabled: has && readsCodes,
    retry: false,
    queryFn: () => exact<VoucherHit>(`/v1/vouchers/${path}`),
  });
  const campaigns = useQuery({
    queryKey: ['search', 'campaigns'],
    enabled: has && readsCampaigns,
    retry: false,
    staleTime: 60_000,
    queryFn: async () => listOf<CampaignHit>(await api('GET', withQuery('/v1/campaigns', { limit: CAMPAIGNS_SCANNED, order: '-created_at' })), 'campaigns').items,
  });
  const order = useQuery({
    queryKey: ['search', 'order', term],
    enabled: has && readsOrders,
    retry: false,
    queryFn: () => exact<OrderHit>(`/v1/orders/${path}`),
  });
  if (!has) return [];

  const kinds: Kind[] = [];
  if (readsCustomers) {
    kinds.push({
      title: 'Customers',
      pending: customers.isPending,
      error: customers.error,
      results: (customers.data ?? []).map((c) => ({
        key: `customer-${c.id}`,
        to: `/customers/${encodeURIComponent(c.id)}`,
        label: c.name ?? c.email ?? c.source_id ?? c.id,
        detail: [c.name ? c.email : null, c.phone].filter(Boolean).join(' · ') || c.source_id,
      })),
    });
  }
  if (readsCodes) {
    const v = code.data;
    kinds.push({
      title: 'Codes',
      pending: code.isPending,
      error: code.error,
      hint: 'Codes: type the whole code',
      results: v
        ? [{ key: `code-${v.code}`, to: `/vouchers/${encodeURIComponent(v.code)}`, label: v.code, detail: v.campaign ? `Campaign ${v.campaign}` : `${words(v.type)} without a campaign` }]
        : [],
    });
  }
  if (readsCampaigns) {
    const needle = term.toLowerCase();
    kinds.push({
      title: 'Campaigns',
      pending: campaigns.isPending,
      error: campaigns.error,
      results: (campaigns.data ?? [])
        .filter((c) => c.name.toLowerCase().includes(needle))
        .slice(0, 5)
        .map((c) => ({ key: `campaign-${c.id}`, to: `/campaigns/${encodeURIComponent(c.id)}`, label: c.name, detail: words(c.campaign_type) })),
    });
  }
  if (readsOrders) {
    const o = order.data;
    kinds.push({
      title: 'Orders',
      pending: order.isPending,
      error: order.error,
      hint: 'Orders: type the whole id or source id',
      results: o
        ? [
            {
              key: `order-${o.id}`,
              to: `/orders/${encodeURIComponent(o.id)}`,
              label: o.source_id ? `${o.source_id} (${o.id})` : o.id,
              detail: (
                <>
                  {o.customer_id ? <OrderCustomer id={o.customer_id} /> : 'No customer'} · {money(o.total_amount ?? o.amount)} · {words(o.status)}
                </>
              ),
            },
          ]
        : [],
    });
  }
  return kinds;
}

function MagnifierIcon() {
  return (
    <svg width={16} height={16} viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth={2.2} strokeLinecap="round" aria-hidden="true">
      <circle cx={10.5} cy={10.5} r={6.5} />
      <path d="M15.5 15.5 21 21" />
    </svg>
  );
}

function typingInAField(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}

export function GlobalSearch() {
  const [opened, { open, close }] = useDisclosure(false);
  const [typed, setTyped] = useState('');
  const [settled] = useDebouncedValue(typed.trim(), TYPING_PAUSE_MS);
  const [active, setActive] = useState(0);
  const navigate = useNavigate();
  const kinds = useSearch(opened ? settled : '');
  const results = kinds.flatMap((k) => k.results);
  const waiting = typed.trim() !== settled || kinds.some((k) => k.pending);

  useEffect(() => {
    const onKey = (event: globalThis.KeyboardEvent) => {
      const shortcut = (event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === 'k';
      const slash = event.key === '/' && !event.ctrlKey && !event.metaKey && !event.altKey && !typingInAField(event.target);
      if (!shortcut && !slash) return;
      event.preventDefault();
      open();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [open]);

  // A new search starts at its first result.
  useEffect(() => setActive(0), [settled]);

  const shut = () => {
    close();
    setTyped('');
  };
  const go = (result: Result | undefined) => {
    if (!result) return;
    shut();
    navigate(result.to);
  };
  const onInputKey = (event: KeyboardEvent<HTMLInputElement>) => {
    if (results.length === 0) return;
    if (event.key === 'ArrowDown') {
      event.preventDefault();
      setActive((i) => (i + 1) % results.length);
    } else if (event.key === 'ArrowUp') {
      event.preventDefault();
      setActive((i) => (i - 1 + results.length) % results.length);
    } else if (event.key === 'Enter') {
      event.preventDefault();
      go(results[Math.min(active, results.length - 1)]);
    }
  };

  let index = 0;
  const optionId = (i: number) => `global-search-option-${i}`;
  const nothing = settled !== '' && !waiting && results.length === 0 && kinds.every((k) => !k.error);

  return (
    <>
      <Button variant="default" size="xs" onClick={open} aria-label="Search everywhere" aria-keyshortcuts="Control+K Meta+K /" px="xs">
        <Group gap={6} wrap="nowrap">
          <MagnifierIcon />
          <Text size="xs" visibleFrom="xs">
            Search
          </Text>
          <Kbd size="xs" visibleFrom="md">
            Ctrl K
          </Kbd>
        </Group>
      </Button>
      <Modal opened={opened} onClose={shut} title="Search" size="lg" yOffset="8vh">
        <Stack gap="sm">
          <TextInput
            data-autofocus
            aria-label="Search customers, codes, campaigns and orders"
            placeholder="Customer name, e-mail or phone; whole code or order id; campaign name"
            value={typed}
            onChange={(e) => setTyped(e.currentTarget.value)}
            onKeyDown={onInputKey}
            rightSection={waiting && typed.trim() !== '' ? <Loader size="xs" aria-label="Searching" /> : null}
            role="combobox"
            aria-expanded={results.length > 0}
            aria-controls="global-search-results"
            aria-activedescendant={results.length > 0 ? optionId(Math.min(active, results.length - 1)) : undefined}
            autoComplete="off"
          />
          {settled === '' && (
            <Text size="sm" c="dimmed">
              Customers by the start of a name, e-mail or phone; campaigns by part of their name; codes and orders by the whole code, id or source id.
            </Text>
          )}
          <div id="global-search-results" role="listbox" aria-label="Results">
            {kinds.map((kind) => {
              if (kind.results.length === 0 && !kind.error) return null;
              return (
                <Stack key={kind.title} gap={2} mb="sm" role="group" aria-label={kind.title}>
                  <Text size="xs" fw={700} c="dimmed" tt="uppercase">
                    {kind.title}
                  </Text>
                  {kind.error ? (
                    <Alert color="red" role="alert" p="xs" data-testid="error-alert">
                      {kind.title}: {messageOf(kind.error)}
                    </Alert>
                  ) : null}
                  {kind.results.map((result) => {
                    const i = index++;
                    const selected = i === active;
                    return (
                      <UnstyledButton
                        key={result.key}
                        id={optionId(i)}
                        role="option"
                        aria-selected={selected}
                        tabIndex={-1}
                        onClick={() => go(result)}
                        onMouseEnter={() => setActive(i)}
                        px="sm"
                        py={6}
                        style={{ borderRadius: 4, background: selected ? 'var(--mantine-color-blue-light)' : undefined }}
                      >
                        <Text size="sm" fw={500} truncate>
                          {result.label}
                        </Text>
                        {result.detail ? (
                          <Text size="xs" c="dimmed" truncate>
                            {result.detail}
                          </Text>
                        ) : null}
                      </UnstyledButton>
                    );
                  })}
                </Stack>
              );
            })}
          </div>
          {nothing && (
            <Text size="sm" data-testid="search-nothing">
              Nothing found for “{settled}”.
            </Text>
          )}
          {settled !== '' && !waiting && (
            <Text size="xs" c="dimmed">
              {[
                ...kinds.filter((k) => k.hint && k.results.length === 0 && !k.error).map((k) => k.hint),
                ...(results.length > 0 ? ['↑ ↓ choose, Enter opens, Esc closes'] : []),
              ].join(' · ')}
            </Text>
          )}
        </Stack>
      </Modal>
    </>
  );
}
