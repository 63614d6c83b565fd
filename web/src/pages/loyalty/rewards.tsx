import { ActionIcon, Button, Card, Group, List, NumberInput, Select, Stack, Table, Text, TextInput } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, listOf, withQuery } from '../../api/client.ts';
import { useCan } from '../../app/session.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { confirmThen, FormCard, useFormSubmit } from '../../components/forms.tsx';
import { Pager } from '../../components/Pager.tsx';
import { money } from '../../components/format.ts';
import { notifyDone, notifyFailed } from '../../components/notify.ts';
import type { Campaign } from '../campaigns/list.tsx';

// What points buy in a program: its reward assignments (GET /v1/loyalties/{id}/rewards) with each reward's
// stock and how many were redeemed; one form that creates a reward (POST /v1/rewards) and assigns it at a
// price in points, or edits one (PUT /v1/rewards/{id}: name, parameters, stock, description; PUT of the
// assignment: its price); a quick stock change; and deleting a reward, which names the programs it is
// taken out of first (the API refuses to delete a reward that is still assigned).

interface Assignment {
  id: string;
  reward_id: string;
  related_object_id?: string;
  parameters?: { loyalty: { points: number } };
}

interface Reward {
  id: string;
  name: string;
  type: 'CAMPAIGN' | 'COIN' | 'MATERIAL';
  stock: number | null;
  redeemed: number | null;
  attributes: { description?: string; image_url?: string };
  parameters: { campaign?: { id: string; balance?: number | null; type?: string }; coin?: { exchange_ratio: number; points_ratio?: number }; product?: { id: string } };
}

const LIMIT = 20;

function rewardText(reward: Reward, names: Map<string, string>): string {
  if (reward.type === 'COIN') return `Pay with points: ${reward.parameters.coin?.points_ratio ?? 1} point(s) = ${reward.parameters.coin?.exchange_ratio ?? '?'} off`;
  if (reward.type === 'MATERIAL') return `Product ${reward.parameters.product?.id ?? '—'}`;
  const c = reward.parameters.campaign;
  return `${c?.type === 'GIFT_VOUCHERS' ? `${money(c.balance ?? 0)} gift credits` : c?.type === 'LOYALTY_PROGRAM' ? `${c.balance ?? 0} points` : 'A coupon'} from ${names.get(c?.id ?? '') ?? c?.id ?? '—'}`;
}

/** One reward of the program; `onStock` and `onEdit` only for a role that may update rewards, `onDelete` for one that may delete them. */
function AssignmentRow({ assignment, names, onStock, onEdit, onDelete }: {
  assignment: Assignment;
  names: Map<string, string>;
  onStock?: (reward: Reward) => void;
  onEdit?: (reward: Reward, assignment: Assignment) => void;
  onDelete?: (reward: Reward) => void;
}) {
  const reward = useQuery({ queryKey: ['reward', assignment.reward_id], queryFn: () => api<Reward>('GET', `/v1/rewards/${assignment.reward_id}`) });
  const r = reward.data;
  return (
    <Table.Tr data-testid={`reward-row-${assignment.reward_id}`}>
      <Table.Td>{r?.name ?? assignment.reward_id}</Table.Td>
      <Table.Td>{r ? rewardText(r, names) : '…'}</Table.Td>
      <Table.Td>{assignment.parameters ? `${assignment.parameters.loyalty.points} points` : 'by the cart'}</Table.Td>
      <Table.Td data-testid="reward-stock">{r ? `${r.stock === null ? 'unlimited' : `${r.stock} left`} · ${r.redeemed ?? 0} redeemed` : '…'}</Table.Td>
      {(onStock || onEdit || onDelete) && (
        <Table.Td>
          {r && (
            <Group gap={4} wrap="nowrap" justify="flex-end">
              {onEdit && (
                <Button size="compact-xs" variant="default" onClick={() => onEdit(r, assignment)} aria-label={`Edit ${r.name}`}>
                  Edit
                </Button>
              )}
              {onStock && (
                <Button size="compact-xs" variant="default" onClick={() => onStock(r)} aria-label={`Change stock of ${r.name}`}>
                  Stock…
                </Button>
              )}
              {onDelete && (
                <ActionIcon variant="subtle" color="red" aria-label={`Delete ${r.name}`} onClick={() => onDelete(r)}>
                  ✕
                </ActionIcon>
              )}
            </Group>
          )}
        </Table.Td>
      )}
    </Table.Tr>
  );
}

const FIELDS = { name: 'name', stock: 'stock', campaign: 'parameters.campaign', product: 'parameters.product', coin: 'parameters.coin', description: 'attributes.description', points: 'parameters.loyalty' };
const EMPTY_FORM = { name: '', type: 'CAMPAIGN', campaign: null as string | null, balance: 10 as number | string, product: '', ratio: 0.1 as number | string, points: 100 as number | string, stock: '' as number | string, description: '' };

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
  const mayEdit = mayStock && can('PUT', '/v1/loyalties/:campaignId/rewards/:assignmentId');
  // Deleting takes the reward out of its programs first, then deletes it.
  const mayDelete = can('DELETE', '/v1/rewards/:rewardId') && can('DELETE', '/v1/loyalties/:campaignId/rewards/:assignmentId') && can('GET', '/v1/rewards/:rewardId/assignments');
  const [form, setForm] = useState(EMPTY_FORM);
  const [editing, setEditing] = useState<{ reward: Reward; assignment: Assignment } | null>(null);
  const { busy, errorFor, formError, submit, setError } = useFormSubmit(FIELDS);
  const source = campaigns.data?.find((c) => c.id === form.campaign);
  const names = new Map((campaigns.data ?? []).map((c) => [c.id, c.name]));
  const refresh = () => client.invalidateQueries({ predicate: (q) => ['reward-assignments', 'reward'].includes(String(q.queryKey[0])) });

  const parameters = () => {
    if (form.type === 'COIN') return { coin: { exchange_ratio: Number(form.ratio), points_ratio: 1 } };
    if (form.type === 'MATERIAL') return { product: { id: form.product } };
    const balance = source?.campaign_type === 'GIFT_VOUCHERS' ? Math.round(Number(form.balance) * 100) : source?.campaign_type === 'LOYALTY_PROGRAM' ? Number(form.balance) : undefined;
    return { campaign: { id: form.campaign ?? '', ...(balance !== undefined ? { balance } : {}) } };
  };

  const save = submit(async () => {
    if (editing) {
      const { reward, assignment } = editing;
      await api('PUT', `/v1/rewards/${reward.id}`, {
        name: form.name,
        parameters: parameters(),
        stock: form.stock === '' ? null : Number(form.stock),
        attributes: { ...reward.attributes, description: form.description === '' ? null : form.description },
      });
      if (reward.type !== 'COIN' && Number(form.points) !== assignment.parameters?.loyalty.points) {
        await api('PUT', `/v1/loyalties/${campaignId}/rewards/${assignment.id}`, { parameters: { loyalty: { points: Number(form.points) } } });
      }
      notifyDone(`Reward “${form.name}” saved`);
      setEditing(null);
      setForm(EMPTY_FORM);
      await refresh();
      return;
    }
    const reward = await api<Reward>('POST', '/v1/rewards', {
      name: form.name,
      type: form.type,
      parameters: parameters(),
      ...(form.stock !== '' ? { stock: Number(form.stock) } : {}),
      ...(form.description !== '' ? { attributes: { description: form.description } } : {}),
    });
    try {
      await api('POST', `/v1/loyalties/${campaignId}/rewards`, [{ reward: reward.id, ...(form.type === 'COIN' ? {} : { parameters: { loyalty: { points: Number(form.points) } } }) }]);
    } catch (caught) {
      // An unassigned reward would sit in the project unseen here: take it back, then show why.
      await api('DELETE', `/v1/rewards/${reward.id}`).catch(() => undefined);
      throw caught;
    }
    notifyDone(`Reward “${reward.name}” added`);
    setForm({ ...form, name: '', description: '' });
    await refresh();
  });

  const edit = (reward: Reward, assignment: Assignment) => {
    const c = reward.parameters.campaign;
    const sourceType = campaigns.data?.find((x) => x.id === c?.id)?.campaign_type ?? c?.type;
    setEditing({ reward, assignment });
    setError(null);
    setForm({
      name: reward.name,
      type: reward.type,
      campaign: c?.id ?? null,
      balance: c?.balance == null ? 10 : sourceType === 'GIFT_VOUCHERS' ? c.balance / 100 : c.balance,
      product: reward.parameters.product?.id ?? '',
      ratio: reward.parameters.coin?.exchange_ratio ?? 0.1,
      points: assignment.parameters?.loyalty.points ?? 100,
      stock: reward.stock ?? '',
      description: reward.attributes.description ?? '',
    });
    document.getElementById(`reward-form-${campaignId}`)?.scrollIntoView({ block: 'start' });
  };

  const cancelEdit = () => {
    setEditing(null);
    setError(null);
    setForm(EMPTY_FORM);
  };

  const remove = async (reward: Reward) => {
    let assigned: Assignment[];
    try {
      assigned = listOf<Assignment>(await api('GET', withQuery(`/v1/rewards/${reward.id}/assignments`, { limit: 100 }))).items;
    } catch (caught) {
      notifyFailed('The reward was not deleted', caught);
      return;
    }
    const programs = assigned.map((a) => names.get(a.related_object_id ?? '') ?? a.related_object_id ?? '');
    confirmThen({
      title: `Delete the reward “${reward.name}”?`,
      body: (
        <Stack gap="xs">
          {programs.length > 0 ? (
            <>
              <Text size="sm">It is taken out of {programs.length === 1 ? 'this program' : `these ${programs.length} programs`} first, then deleted:</Text>
              <List size="sm" data-testid="reward-programs">
                {programs.map((p, i) => (
                  <List.Item key={`${p}-${i}`}>{p}</List.Item>
                ))}
              </List>
            </>
          ) : (
            <Text size="sm">It is not assigned to any program.</Text>
          )}
          <Text size="sm">Members can no longer redeem it; rewards already redeemed stay.</Text>
        </Stack>
      ),
      confirm: 'Delete reward',
      action: async () => {
        for (const a of assigned) await api('DELETE', `/v1/loyalties/${a.related_object_id ?? campaignId}/rewards/${a.id}`);
        await api('DELETE', `/v1/rewards/${reward.id}`);
        setEditing((current) => (current?.reward.id === reward.id ? null : current));
        await refresh();
      },
      done: `Reward “${reward.name}” deleted`,
      failed: 'The reward was not deleted',
    });
  };

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
            <DataTable columns={mayStock || mayDelete ? ['Reward', 'Gives', 'Price', 'Stock', ''] : ['Reward', 'Gives', 'Price', 'Stock']} minWidth={720}>
              {assignments.data.items.map((a) => (
                <AssignmentRow
                  key={a.id}
                  assignment={a}
                  names={names}
                  onStock={mayStock ? changeStock : undefined}
                  onEdit={mayEdit ? edit : undefined}
                  onDelete={mayDelete ? (r) => void remove(r) : undefined}
                />
              ))}
            </DataTable>
            <Pager page={page} limit={LIMIT} count={assignments.data.items.length} total={assignments.data.total} onPage={setPage} />
          </>
        )}
      </Card>
      {(editing ? mayEdit : mayAdd) && (
      <div id={`reward-form-${campaignId}`}>
      <FormCard
        title={editing ? `Edit reward “${editing.reward.name}”` : 'New reward'}
        onSubmit={save}
        error={formError}
        errorTitle={editing ? 'The reward was not saved' : 'The reward was not added'}
        submit={editing ? 'Save reward' : 'Add reward'}
        busy={busy}
      >
        {editing && (
          <Group justify="space-between" wrap="wrap">
            <Text size="sm" c="dimmed">
              What a reward gives cannot change kind; {editing.reward.redeemed ?? 0} redeemed so far.
            </Text>
            <Button variant="subtle" size="xs" onClick={cancelEdit}>
              Cancel editing
            </Button>
          </Group>
        )}
        <Group align="flex-start" wrap="wrap">
          <TextInput label="Reward name" required value={form.name} onChange={(e) => setForm({ ...form, name: e.currentTarget.value })} error={errorFor('name')} w={240} />
          <Select
            label="Gives"
            value={form.type}
            allowDeselect={false}
            onChange={(type) => setForm({ ...form, type: type ?? 'CAMPAIGN' })}
            disabled={editing !== null}
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
          {form.type !== 'COIN' && <NumberInput label="Price in points" value={form.points} onChange={(points) => setForm({ ...form, points })} min={1} error={errorFor('points')} w={160} />}
          <NumberInput label="Stock" description="Empty: unlimited" value={form.stock} onChange={(stock) => setForm({ ...form, stock })} min={0} error={errorFor('stock')} w={160} />
        </Group>
        <TextInput label="Description" description="Shown to members where rewards are listed" value={form.description} onChange={(e) => setForm({ ...form, description: e.currentTarget.value })} error={errorFor('description')} />
      </FormCard>
      </div>
      )}
    </Stack>
  );
}
