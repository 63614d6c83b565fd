import { Badge, Card, Group, Image, Loader, NumberInput, SimpleGrid, Stack, Table, Text, TextInput, Textarea, Title, Button } from '@mantine/core';
import { modals } from '@mantine/modals';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { api, listOf, withQuery } from '../../api/client.ts';
import { useCan } from '../../app/session.tsx';
import { fieldOfError, messageOf } from '../../api/field-errors.ts';
import { DataTable } from '../../components/DataTable.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { Pager } from '../../components/Pager.tsx';
import { CustomerLink } from '../../components/CustomerLink.tsx';
import { dateTime, money } from '../../components/format.ts';
import { notifyDone, notifyFailed } from '../../components/notify.ts';
import { VoucherHistory } from './history.tsx';
import { TryCodeCard } from './try-code.tsx';

// Vouchers: search by code, filter by campaign or holder, and one voucher with its QR code and barcode,
// its redemption history, validating and redeeming it by hand, publishing it to a customer while nobody
// holds it, enable/disable, and balance changes for gift and loyalty cards.

export interface Voucher {
  id: string;
  code: string;
  type: 'DISCOUNT_VOUCHER' | 'GIFT_VOUCHER' | 'LOYALTY_CARD';
  campaign: string | null;
  campaign_id: string | null;
  active: boolean;
  holder_id?: string | null;
  discount?: { type: string; percent_off?: number; amount_off?: number } | null;
  gift?: { amount: number; balance: number } | null;
  loyalty_card?: { points: number; balance: number } | null;
  redemption?: { quantity: number | null; redeemed_quantity: number };
  publish?: { count: number };
  start_date?: string | null;
  expiration_date?: string | null;
  created_at: string;
  assets?: { qr?: { url: string }; barcode?: { url: string } };
}

const LIMIT = 20;

export function valueOf(v: Voucher): string {
  if (v.type === 'GIFT_VOUCHER' && v.gift) return `${money(v.gift.balance)} of ${money(v.gift.amount)}`;
  if (v.type === 'LOYALTY_CARD' && v.loyalty_card) return `${v.loyalty_card.balance} points`;
  if (v.discount?.type === 'PERCENT') return `${v.discount.percent_off ?? 0}% off`;
  if (v.discount?.type === 'AMOUNT') return `${money(v.discount.amount_off ?? 0)} off`;
  return v.discount?.type ?? '—';
}

export function VouchersPage() {
  const navigate = useNavigate();
  const [params, setParams] = useSearchParams();
  const page = Number(params.get('page') ?? '1');
  const campaign = params.get('campaign') ?? '';
  const customer = params.get('customer') ?? '';
  const [code, setCode] = useState('');
  const [filters, setFilters] = useState({ campaign, customer });
  const list = useQuery({
    queryKey: ['vouchers', page, campaign, customer],
    queryFn: async () => listOf<Voucher>(await api('GET', withQuery('/v1/vouchers', { limit: LIMIT, page, campaign, customer })), 'vouchers'),
  });
  const set = (patch: Record<string, string>) => {
    const next = new URLSearchParams(params);
    for (const [k, v] of Object.entries(patch)) (v === '' ? next.delete(k) : next.set(k, v));
    setParams(next);
  };

  return (
    <>
      <PageHeader title="Vouchers" />
      <Card withBorder>
        <Group mb="sm" align="flex-end" wrap="wrap">
          <form onSubmit={(e) => { e.preventDefault(); if (code.trim()) navigate(`/vouchers/${encodeURIComponent(code.trim())}`); }}>
            <TextInput label="Find by code" description="Enter opens the voucher" value={code} onChange={(e) => setCode(e.currentTarget.value)} w={220} />
          </form>
          <form onSubmit={(e) => { e.preventDefault(); set({ ...filters, page: '' }); }}>
            <Group align="flex-end">
              <TextInput label="Campaign" value={filters.campaign} onChange={(e) => setFilters({ ...filters, campaign: e.currentTarget.value })} w={180} />
              <TextInput label="Holder (customer id or source_id)" value={filters.customer} onChange={(e) => setFilters({ ...filters, customer: e.currentTarget.value })} w={220} />
              <Button type="submit" variant="default">Filter</Button>
            </Group>
          </form>
        </Group>
        {list.isPending && <Loader aria-label="Loading vouchers" />}
        <ErrorAlert error={list.error} />
        {list.data && (
          <>
            <DataTable columns={['Code', 'Type', 'Value', 'Campaign', 'Holder', 'Status']} minWidth={720} highlightOnHover>
              {list.data.items.map((v) => (
                <Table.Tr key={v.id}>
                  <Table.Td><Link to={`/vouchers/${encodeURIComponent(v.code)}`}><code>{v.code}</code></Link></Table.Td>
                  <Table.Td>{v.type}</Table.Td>
                  <Table.Td>{valueOf(v)}</Table.Td>
                  <Table.Td>{v.campaign ?? '—'}</Table.Td>
                  <Table.Td>{v.holder_id ? <CustomerLink id={v.holder_id} /> : '—'}</Table.Td>
                  <Table.Td><Badge variant="light" color={v.active ? 'green' : 'gray'}>{v.active ? 'active' : 'disabled'}</Badge></Table.Td>
                </Table.Tr>
              ))}
            </DataTable>
            {list.data.items.length === 0 && <Text c="dimmed">No vouchers match.</Text>}
            <Pager page={page} limit={LIMIT} count={list.data.items.length} total={list.data.total} onPage={(p) => set({ page: String(p) })} />
          </>
        )}
      </Card>
    </>
  );
}

export function VoucherPage() {
  const { code = '' } = useParams();
  const client = useQueryClient();
  const can = useCan();
  const [error, setError] = useState<unknown>(null);
  const [balance, setBalance] = useState<{ amount: number | string; reason: string }>({ amount: '', reason: '' });
  const [balanceError, setBalanceError] = useState<unknown>(null);
  const voucher = useQuery({ queryKey: ['voucher', code], queryFn: () => api<Voucher>('GET', `/v1/vouchers/${encodeURIComponent(code)}`) });
  const refresh = () => client.invalidateQueries({ predicate: (q) => ['voucher', 'vouchers'].includes(String(q.queryKey[0])) });

  const toggle = async (enable: boolean) => {
    setError(null);
    try {
      await api('POST', `/v1/vouchers/${encodeURIComponent(code)}/${enable ? 'enable' : 'disable'}`);
      notifyDone(enable ? 'Voucher enabled' : 'Voucher disabled');
      await refresh();
    } catch (e) {
      setError(e);
    }
  };
  const publish = () => {
    let customer = '';
    modals.openConfirmModal({
      title: `Publish ${code}`,
      children: <TextInput label="Customer (id or source_id)" data-autofocus onChange={(e) => (customer = e.currentTarget.value)} />,
      labels: { confirm: 'Publish', cancel: 'Cancel' },
      onConfirm: () =>
        void api('POST', '/v1/publications', { customer: customer.startsWith('cust_') ? { id: customer } : { source_id: customer }, voucher: code })
          .then(() => { notifyDone(`${code} published to ${customer}`); return refresh(); })
          .catch((e: unknown) => notifyFailed(`${code} was not published`, e)),
    });
  };
  const changeBalance = async (event: React.FormEvent, v: Voucher) => {
    event.preventDefault();
    setBalanceError(null);
    const amount = v.type === 'GIFT_VOUCHER' ? Math.round(Number(balance.amount) * 100) : Number(balance.amount);
    try {
      await api('POST', `/v1/vouchers/${encodeURIComponent(code)}/balance`, { amount, ...(balance.reason ? { reason: balance.reason } : {}) });
      notifyDone('Balance changed');
      setBalance({ amount: '', reason: '' });
      await refresh();
    } catch (e) {
      setBalanceError(e);
    }
  };

  if (voucher.isPending) return <Loader aria-label="Loading voucher" />;
  if (voucher.isError) return <ErrorAlert error={voucher.error} title="Voucher not found" />;
  const v = voucher.data;
  const balanceField = fieldOfError(balanceError, { amount: 'amount', reason: 'reason' });

  return (
    <Stack>
      <PageHeader
        title={v.code}
        description={v.campaign ? `Campaign ${v.campaign}` : 'Standalone voucher'}
        actions={
          <>
            {!v.holder_id && can('POST', '/v1/publications') && <Button variant="light" onClick={publish}>Publish…</Button>}
            {v.active
              ? can('POST', '/v1/vouchers/:code/disable') && <Button variant="default" onClick={() => void toggle(false)}>Disable</Button>
              : can('POST', '/v1/vouchers/:code/enable') && <Button onClick={() => void toggle(true)}>Enable</Button>}
          </>
        }
      />
      <ErrorAlert error={error} />
      <SimpleGrid cols={{ base: 1, sm: 2, md: 4 }}>
        <Card withBorder><Text size="xs" c="dimmed">Type</Text><Text fw={600}>{v.type}</Text></Card>
        <Card withBorder><Text size="xs" c="dimmed">Value</Text><Text fw={600} data-testid="voucher-value">{valueOf(v)}</Text></Card>
        <Card withBorder><Text size="xs" c="dimmed">Redeemed</Text><Text fw={600}>{v.redemption?.redeemed_quantity ?? 0}{v.redemption?.quantity ? ` of ${v.redemption.quantity}` : ''}</Text></Card>
        <Card withBorder data-testid="voucher-holder"><Text size="xs" c="dimmed">Holder</Text>{v.holder_id ? <CustomerLink id={v.holder_id} /> : <Text fw={600}>nobody yet</Text>}</Card>
      </SimpleGrid>
      <Card withBorder>
        <Group align="flex-start" wrap="wrap" gap="xl">
          {v.assets?.qr?.url && <Image src={v.assets.qr.url} alt={`QR code of ${v.code}`} w={160} h={160} fit="contain" />}
          {v.assets?.barcode?.url && <Image src={v.assets.barcode.url} alt={`Barcode of ${v.code}`} w={280} h={100} fit="contain" />}
          <Stack gap={2}>
            <Text size="sm">Status: {v.active ? 'active' : 'disabled'}</Text>
            <Text size="sm">Valid: {v.start_date ? dateTime(v.start_date) : 'from now'} – {v.expiration_date ? dateTime(v.expiration_date) : 'no end'}</Text>
            <Text size="sm">Published: {v.publish?.count ?? 0} time(s)</Text>
            <Text size="sm">Created: {dateTime(v.created_at)}</Text>
          </Stack>
        </Group>
      </Card>
      {v.type !== 'LOYALTY_CARD' && <TryCodeCard code={v.code} holderId={v.holder_id ?? null} />}
      <VoucherHistory code={v.code} type={v.type} />
      {(v.type === 'GIFT_VOUCHER' || v.type === 'LOYALTY_CARD') && can('POST', '/v1/vouchers/:code/balance') && (
        <Card withBorder>
          <Title order={2} size="h5" mb="xs">Change the balance</Title>
          <form onSubmit={(e) => void changeBalance(e, v)}>
            <Group align="flex-start" wrap="wrap">
              <NumberInput
                label={v.type === 'GIFT_VOUCHER' ? 'Amount (negative removes)' : 'Points (negative removes)'}
                value={balance.amount}
                onChange={(amount) => setBalance({ ...balance, amount })}
                decimalScale={v.type === 'GIFT_VOUCHER' ? 2 : 0}
                error={balanceField === 'amount' ? messageOf(balanceError) : undefined}
                w={220}
              />
              <Textarea label="Reason" autosize value={balance.reason} onChange={(e) => setBalance({ ...balance, reason: e.currentTarget.value })} error={balanceField === 'reason' ? messageOf(balanceError) : undefined} w={300} />
              <Button type="submit" mt={24}>Apply</Button>
            </Group>
          </form>
          {balanceError !== null && balanceField === null && <ErrorAlert error={balanceError} />}
        </Card>
      )}
    </Stack>
  );
}
