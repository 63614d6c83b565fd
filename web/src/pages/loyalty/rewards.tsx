import { Button, Card, Group, NumberInput, Select, Stack, Table, Text, TextInput } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, listOf, withQuery } from '../../api/client.ts';
import { useCan } from '../../app/session.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { confirmThen, FormCard, useFormSubmit } from '../../components/forms.tsx';
import { Pager } from '../../components/Pager.tsx';
import { money } from '../../components/format.ts';
import { notifyDone } from '../../components/notify.ts';
import type { Campaign } from '../campaigns/list.tsx';

// What points buy in a program: its reward assignments (GET /v1/loyalties/{id}/rewards) with each reward's
// stock and how many were redeemed, a form that creates a reward (POST /v1/rewards) and assigns it at a
// price in points, and a stock change (PUT /v1/rewards/{id}).

interface Assignment {
  id: string;
  reward_id: string;
  parameters?: { loyalty: { points: number } };
}

interface Reward {
  id: string;
  name: string;
  type: 'CAMPAIGN' | 'COIN' | 'MATERIAL';
  stock: number | null;
  redeemed: number | null;
  parameters: { campaign?: { id: string; balance?: number | null; type?: string }; coin?: { exchange_ratio: number; points_ratio?: number }; product?: { id: string } };
}

const LIMIT = 20;

function rewardText(reward: Reward, names: Map<string, string>): string {
  if (reward.type === 'COIN') return `Pay with points: ${reward.parameters.coin?.points_ratio ?? 1} point(s) = ${reward.parameters.coin?.exchange_ratio ?? '?'} off`;
  if (reward.type === 'MATERIAL') return `Product ${reward.parameters.product?.id ?? '—'}`;
  const c = reward.parameters.campaign;
  return `${c?.type === 'GIFT_VOUCHERS' ? `${money(c.balance ?? 0)} gift credits` : c?.type === 'LOYALTY_PROGRAM' ? `${c.balance ?? 0} points` : 'A coupon'} from ${names.get(c?.id ?? '') ?? c?.id ?? '—'}`;
}

/** One reward of the program; `onStock` (changing its stock) only for a role that may update rewards. */
function AssignmentRow({ assignment, names, onStock }: { assignment: Assignment; names: Map<string, string>; onStock?: (reward: Reward) => void }) {
  const reward = useQuery({ queryKey: ['reward', assignment.reward_id], queryFn: () => api<Reward>('GET', `/v1/rewards/${assignment.reward_id}`) });
  const r = reward.data;
  return (
    <Table.Tr data-testid={`reward-row-${assignment.reward_id}`}>
      <Table.Td>{r?.name ?? assignment.reward_id}</Table.Td>
      <Table.Td>{r ? rewardText(r, names) : '…'}</Table.Td>
      <Table.Td>{assignment.parameters ? `${assignment.parameters.loyalty.points} points` : 'by the cart'}</Table.Td>
      <Table.Td data-testid="reward-stock">{r ? `${r.stock === null ? 'unlimited' : `${r.stock} left`} · ${r.redeemed ?? 0} redeemed` : '…'}</Table.Td>
      {onStock && (
        <Table.Td>
          {r && (
            <Button size="compact-xs" variant="default" onClick={() => onStock(r)} aria-label={`Change stock of ${r.name}`}>
              Stock…
            </Button>
          )}
        </Table.Td>
      )}
    </Table.Tr>
  );
}

const FIELDS = { name: 'name', stock: 'stock', campaign: 'parameters.campaign', product: 'parameters.product', coin: 'parameters.coin' };

export function RewardsTab({ campaignId }: { campaignId: string }) {
  const client = useQueryClient();
  const can = useCan();
  const mayStock = can('PUT', '/v1/rewards/:rewardId');
  // Adding a reward creates it, then assigns it to the program (and deletes it if that is refused).
  const mayAdd = can('POST', '/v1/rewards') && can('POST', '/v1/loyalties/:campaignId/rewards') && can('DELETE', '/v1/rewards/:rewardId');
  const [page, setPage] = useState(1);
  const assignments = useQuery({
    queryKey: ['reward-assignments', campaignId, page],
    queryFn: async () => listOf<Assignment>(await api('GET', withQuery(`/v1/loyalties/${campaignId}/rewards`, { limit: LIMIT, page }))),
  });
  const campaigns = useQuery({
    queryKey: ['campaigns', 'reward-sources'],
    queryFn: async () => listOf<Campaign>(await api('GET', withQuery('/v1/campaigns', { limit: 100, order: '-created_at' }))).items.filter((c) => ['DISCOUNT_COUPONS', 'GIFT_VOUCHERS', 'LOYALTY_PROGRAM'].includes(c.campaign_type)),
  });
  const [form, setForm] = useState({ name: '', type: 'CAMPAIGN', campaign: null as string | null, balance: 10 as number | string, product: '', ratio: 0.1 as number | string, points: 100 as number | string, stock: '' as number | string });
  const { busy, errorFor, formError, submit } = useFormSubmit(FIELDS);
  const source = campaigns.data?.find((c) => c.id === form.campaign);
  const names = new Map((campaigns.data ?? []).map((c) => [c.id, c.name]));
  const refresh = () => client.invalidateQueries({ predicate: (q) => ['reward-assignments', 'reward'].includes(String(q.queryKey[0])) });

  const parameters = () => {
    if (form.type === 'COIN') return { coin: { exchange_ratio: Number(form.ratio), points_ratio: 1 } };
    if (form.type === 'MATERIAL') return { product: { id: form.product } };
    const balance = source?.campaign_type === 'GIFT_VOUCHERS' ? Math.round(Number(form.balance) * 100) : source?.campaign_type === 'LOYALTY_PROGRAM' ? Number(form.balance) : undefined;
    return { campaign: { id: form.campaign ?? '', ...(balance !== undefined ? { balance } : {}) } };
  };

  const create = submit(async () => {
    const reward = await api<Reward>('POST', '/v1/rewards', { name: form.name, type: form.type, parameters: parameters(), ...(form.stock !== '' ? { stock: Number(form.stock) } : {}) });
    try {
      await api('POST', `/v1/loyalties/${campaignId}/rewards`, [{ reward: reward.id, ...(form.type === 'COIN' ? {} : { parameters: { loyalty: { points: Number(form.points) } } }) }]);
    } catch (caught) {
      // An unassigned reward would sit in the project unseen here: take it back, then show why.
      await api('DELETE', `/v1/rewards/${reward.id}`).catch(() => undefined);
      throw caught;
    }
    notifyDone(`Reward “${reward.name}” added`);
    setForm({ ...form, name: '' });
    await refresh();
  });

  const changeStock = (reward: Reward) => {
    let stock = reward.stock === null ? '' : String(reward.stock);
    confirmThen({
      title: `Stock of ${reward.name}`,
      body: (
        <Stack gap="xs">
          <Text size="sm">{reward.redeemed ?? 0} redeemed so far. Empty means unlimited.</Text>
          <TextInput label="Units left" defaultValue={stock} data-autofocus onChange={(e) => (stock = e.currentTarget.value)} />
        </Stack>
      ),
      confirm: 'Save stock',
      danger: false,
      action: async () => {
        await api('PUT', `/v1/rewards/${reward.id}`, { stock: stock.trim() === '' ? null : Number(stock) });
        await refresh();
      },
      done: `Stock of ${reward.name} saved`,
      failed: 'The stock was not changed',
    });
  };

  return (
    <Stack>
      <Card withBorder>
        <ErrorAlert error={assignments.error} />
        {assignments.data && assignments.data.items.length === 0 && <Text c="dimmed">No reward yet: points buy nothing.</Text>}
        {assignments.data && assignments.data.items.length > 0 && (
          <>
            <DataTable columns={mayStock ? ['Reward', 'Gives', 'Price', 'Stock', ''] : ['Reward', 'Gives', 'Price', 'Stock']} minWidth={640}>
              {assignments.data.items.map((a) => (
                <AssignmentRow key={a.id} assignment={a} names={names} onStock={mayStock ? changeStock : undefined} />
              ))}
            </DataTable>
            <Pager page={page} limit={LIMIT} count={assignments.data.items.length} total={assignments.data.total} onPage={setPage} />
          </>
        )}
      </Card>
      {mayAdd && (
      <FormCard title="New reward" onSubmit={create} error={formError} errorTitle="The reward was not added" submit="Add reward" busy={busy}>
        <Group align="flex-start" wrap="wrap">
          <TextInput label="Reward name" required value={form.name} onChange={(e) => setForm({ ...form, name: e.currentTarget.value })} error={errorFor('name')} w={240} />
          <Select
            label="Gives"
            value={form.type}
            allowDeselect={false}
            onChange={(type) => setForm({ ...form, type: type ?? 'CAMPAIGN' })}
            data={[
              { value: 'CAMPAIGN', label: 'A coupon, gift credits or points' },
              { value: 'MATERIAL', label: 'A product' },
              { value: 'COIN', label: 'Pay with points' },
            ]}
            w={260}
          />
        </Group>
        <Group align="flex-start" wrap="wrap">
          {form.type === 'CAMPAIGN' && (
            <>
              <Select
                label="From campaign"
                placeholder={campaigns.data?.length === 0 ? 'No coupon, gift or loyalty campaign yet' : 'Choose'}
                value={form.campaign}
                onChange={(campaign) => setForm({ ...form, campaign })}
                data={(campaigns.data ?? []).filter((c) => c.id !== campaignId).map((c) => ({ value: c.id, label: `${c.name} (${c.campaign_type})` }))}
                error={errorFor('campaign')}
                searchable
                w={300}
              />
              {source && source.campaign_type !== 'DISCOUNT_COUPONS' && (
                <NumberInput
                  label={source.campaign_type === 'GIFT_VOUCHERS' ? 'Gift credits' : 'Points added'}
                  value={form.balance}
                  onChange={(balance) => setForm({ ...form, balance })}
                  min={0}
                  decimalScale={source.campaign_type === 'GIFT_VOUCHERS' ? 2 : 0}
                  w={160}
                />
              )}
            </>
          )}
          {form.type === 'MATERIAL' && <TextInput label="Product (id or source_id)" value={form.product} onChange={(e) => setForm({ ...form, product: e.currentTarget.value })} error={errorFor('product')} w={260} />}
          {form.type === 'COIN' && (
            <NumberInput label="Value of one point" description="Off the order, in major units" value={form.ratio} onChange={(ratio) => setForm({ ...form, ratio })} min={0} decimalScale={4} error={errorFor('coin')} w={200} />
          )}
          {form.type !== 'COIN' && <NumberInput label="Price in points" value={form.points} onChange={(points) => setForm({ ...form, points })} min={1} w={160} />}
          <NumberInput label="Stock" description="Empty: unlimited" value={form.stock} onChange={(stock) => setForm({ ...form, stock })} min={0} error={errorFor('stock')} w={160} />
        </Group>
      </FormCard>
      )}
    </Stack>
  );
}
