import { Badge, Button, Card, Group, Loader, NumberInput, Progress, SimpleGrid, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { modals } from '@mantine/modals';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { api, listOf, withQuery } from '../../api/client.ts';
import { useCan } from '../../app/session.tsx';
import { messageOf } from '../../api/field-errors.ts';
import { DataTable } from '../../components/DataTable.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { Pager } from '../../components/Pager.tsx';
import { dateTime, money } from '../../components/format.ts';
import { notifyDone, notifyFailed } from '../../components/notify.ts';
import { describe, fromApi } from '../../rules/translate.ts';
import type { Campaign, PromotionTier } from './list.tsx';

// One campaign: its discount and rule, enable/disable, code generation with progress, and its codes,
// each of which can be published to a customer (each action shown only to a role that may take it).

interface Voucher {
  id: string;
  code: string;
  active: boolean;
  holder_id?: string | null;
  redemption?: { quantity: number | null; redeemed_quantity: number };
  publish?: { count: number };
  created_at: string;
}

interface AsyncAction {
  id: string;
  status: string;
  progress: number;
  result?: { message?: string };
}

const LIMIT = 20;

function discountOfText(d: { type: string; percent_off?: number; amount_off?: number } | null | undefined): string {
  if (!d) return '—';
  if (d.type === 'PERCENT') return `${d.percent_off ?? 0}% off`;
  if (d.type === 'AMOUNT') return `${money(d.amount_off ?? 0)} off`;
  return d.type;
}

/** What one code (or, for promotions, the campaign) gives. */
function discountText(campaign: Campaign): string {
  if (campaign.campaign_type === 'PROMOTION') return `${campaign.promotion?.total ?? 0} tier(s)`;
  if (campaign.voucher?.gift) return `${money(campaign.voucher.gift.amount)} credits per card`;
  if (campaign.voucher?.loyalty_card) return `Cards start with ${campaign.voucher.loyalty_card.points} points`;
  const d = campaign.voucher?.discount;
  if (!d) return '—';
  if (d.type === 'PERCENT') return `${d.percent_off ?? 0}% off`;
  if (d.type === 'AMOUNT') return `${money(d.amount_off ?? 0)} off`;
  return d.type;
}

function RuleSummary({ ruleId }: { ruleId: string }) {
  const rule = useQuery({ queryKey: ['validation-rule', ruleId], queryFn: () => api<{ name: string; rules: Record<string, unknown>; applicable_to?: never }>('GET', `/v1/validation-rules/${ruleId}`) });
  if (!rule.data) return <Text size="sm">{ruleId}</Text>;
  const read = fromApi(rule.data);
  return (
    <Text size="sm" data-testid="campaign-rule">
      {read.ok ? describe(read.model) : `${rule.data.name}: ${read.reason}`}
    </Text>
  );
}

export function CampaignDetailPage() {
  const { campaignId = '' } = useParams();
  const client = useQueryClient();
  const can = useCan();
  const [page, setPage] = useState(1);
  const [count, setCount] = useState<number | string>(10);
  const [generation, setGeneration] = useState<AsyncAction | null>(null);
  const [actionError, setActionError] = useState<unknown>(null);
  const campaign = useQuery({ queryKey: ['campaign', campaignId], queryFn: () => api<Campaign>('GET', `/v1/campaigns/${encodeURIComponent(campaignId)}`) });
  const vouchers = useQuery({
    queryKey: ['campaign-vouchers', campaign.data?.id, page],
    enabled: Boolean(campaign.data),
    queryFn: async () => listOf<Voucher>(await api('GET', withQuery('/v1/vouchers', { campaign_id: campaign.data?.id, limit: LIMIT, page })), 'vouchers'),
  });

  const refresh = () => client.invalidateQueries({ predicate: (q) => ['campaign', 'campaign-vouchers', 'campaigns', 'report'].includes(String(q.queryKey[0])) });

  const toggle = async (enable: boolean) => {
    setActionError(null);
    try {
      await api('POST', `/v1/campaigns/${campaign.data?.id}/${enable ? 'enable' : 'disable'}`);
      notifyDone(enable ? 'Campaign enabled' : 'Campaign disabled');
      await refresh();
    } catch (error) {
      setActionError(error);
    }
  };

  const generate = async () => {
    setActionError(null);
    setGeneration({ id: '', status: 'IN_PROGRESS', progress: 0 });
    try {
      const answer = await api<{ async_action_id?: string; code?: string }>('POST', withQuery(`/v1/campaigns/${campaign.data?.id}/vouchers`, { vouchers_count: count }), {});
      let action: AsyncAction = { id: answer.async_action_id ?? '', status: answer.async_action_id ? 'IN_PROGRESS' : 'DONE', progress: answer.async_action_id ? 0 : 100 };
      setGeneration(action);
      while (action.status !== 'DONE' && action.status !== 'FAILED') {
        await new Promise((r) => setTimeout(r, 1000));
        action = await api<AsyncAction>('GET', `/v1/async-actions/${action.id}`);
        setGeneration(action);
      }
      if (action.status === 'FAILED') throw new Error(action.result?.message ?? 'Code generation failed');
      notifyDone(`${count} code(s) generated`);
      await refresh();
    } catch (error) {
      setActionError(error);
      setGeneration(null);
    }
  };

  const publish = (voucher: Voucher) => {
    let customer = '';
    modals.openConfirmModal({
      title: `Publish ${voucher.code}`,
      children: <TextInput label="Customer (id or source_id)" data-autofocus onChange={(e) => (customer = e.currentTarget.value)} />,
      labels: { confirm: 'Publish', cancel: 'Cancel' },
      onConfirm: () =>
        void (async () => {
          try {
            await api('POST', '/v1/publications', { customer: customer.startsWith('cust_') ? { id: customer } : { source_id: customer }, voucher: voucher.code });
            notifyDone(`${voucher.code} published to ${customer}`);
            await refresh();
          } catch (error) {
            notifyFailed(`${voucher.code} was not published`, error);
          }
        })(),
    });
  };

  if (campaign.isPending) return <Loader aria-label="Loading campaign" />;
  if (campaign.isError) return <ErrorAlert error={campaign.error} title="Campaign not found" />;
  const c = campaign.data;
  const ruleIds = (c.validation_rules_assignments?.data ?? []).map((a) => a.rule_id);

  return (
    <Stack>
      <PageHeader
        title={c.name}
        description={c.description ?? undefined}
        actions={
          c.active
            ? can('POST', '/v1/campaigns/:campaignId/disable') && (
                <Button variant="default" color="red" onClick={() => void toggle(false)}>
                  Disable
                </Button>
              )
            : can('POST', '/v1/campaigns/:campaignId/enable') && <Button onClick={() => void toggle(true)}>Enable</Button>
        }
      />
      <ErrorAlert error={actionError} />
      <SimpleGrid cols={{ base: 1, sm: 2, md: 4 }}>
        <Card withBorder>
          <Text size="xs" c="dimmed">
            Status
          </Text>
          <Badge color={c.active ? 'green' : 'gray'} variant="light" data-testid="campaign-status">
            {c.active ? 'active' : 'disabled'}
          </Badge>
        </Card>
        <Card withBorder>
          <Text size="xs" c="dimmed">
            {c.campaign_type === 'PROMOTION' ? 'Tiers' : 'Value'}
          </Text>
          <Text fw={600}>{discountText(c)}</Text>
        </Card>
        <Card withBorder>
          <Text size="xs" c="dimmed">
            {c.campaign_type === 'PROMOTION' ? 'Applied' : 'Codes'}
          </Text>
          <Text fw={600} data-testid="vouchers-count">
            {c.campaign_type === 'PROMOTION' ? 'automatically, no code' : c.vouchers_count}
          </Text>
        </Card>
        <Card withBorder>
          <Text size="xs" c="dimmed">
            Valid
          </Text>
          <Text size="sm">
            {c.start_date ? dateTime(c.start_date) : 'from now'} – {c.expiration_date ? dateTime(c.expiration_date) : 'no end'}
          </Text>
        </Card>
      </SimpleGrid>
      {(c.campaign_type !== 'PROMOTION' || ruleIds.length > 0) && (
      <Card withBorder>
        <Title order={2} size="h5" mb="xs">
          Validation rule
        </Title>
        {ruleIds.length === 0 ? <Text size="sm">No rule: every order qualifies.</Text> : ruleIds.map((id) => <RuleSummary key={id} ruleId={id} />)}
      </Card>
      )}
      {c.campaign_type === 'PROMOTION' && <TiersCard tiers={c.promotion?.tiers ?? []} />}
      {c.campaign_type === 'LOYALTY_PROGRAM' && (
        <Card withBorder>
          <Group justify="space-between" wrap="wrap">
            <Text size="sm">Earning rules, rewards, tiers and members are on the program's loyalty page.</Text>
            <Button component={Link} to={`/loyalty/${c.id}`} variant="light" size="xs">
              Open loyalty page
            </Button>
          </Group>
        </Card>
      )}
      {c.referral_program && (
        <Card withBorder>
          <Title order={2} size="h5" mb="xs">
            Referral program
          </Title>
          <Text size="sm" data-testid="referral-program">
            Converts on {c.referral_program.conversion_event_type === 'custom_event' ? 'a custom event' : 'redemption of the code'}
            {c.referral_program.referee_reward
              ? `; the friend also gets ${c.referral_program.referee_reward.type === 'GIFT_VOUCHER' ? `${money(c.referral_program.referee_reward.amount)} credits` : `${c.referral_program.referee_reward.amount} points`} (${c.referral_program.referee_reward.related_object_parent.name ?? c.referral_program.referee_reward.related_object_parent.id})`
              : ''}
          </Text>
        </Card>
      )}
      {c.campaign_type !== 'PROMOTION' && (
      <Card withBorder>
        <Group justify="space-between" mb="sm" wrap="wrap">
          <Title order={2} size="h5">
            Codes
          </Title>
          {can('POST', '/v1/campaigns/:campaignId/vouchers') && (
            <Group gap="xs" align="flex-end">
              <NumberInput aria-label="Codes to generate" value={count} onChange={setCount} min={1} max={100000} w={120} size="xs" />
              <Button size="xs" onClick={() => void generate()} loading={generation !== null && generation.status !== 'DONE'}>
                Generate codes
              </Button>
            </Group>
          )}
        </Group>
        {generation && (
          <Stack gap={4} mb="sm">
            <Progress value={generation.progress} animated={generation.status !== 'DONE'} aria-label="Code generation progress" />
            <Text size="xs" c="dimmed">
              {generation.status === 'DONE' ? 'Done' : `Generating… ${generation.progress}%`}
            </Text>
          </Stack>
        )}
        <ErrorAlert error={vouchers.error} />
        {vouchers.data && (
          <>
            <DataTable columns={can('POST', '/v1/publications') ? ['Code', 'Status', 'Redeemed', 'Holder', ''] : ['Code', 'Status', 'Redeemed', 'Holder']} minWidth={520}>
              {vouchers.data.items.map((v) => (
                <Table.Tr key={v.id}>
                  <Table.Td>
                    <code>{v.code}</code>
                  </Table.Td>
                  <Table.Td>{v.active ? 'active' : 'disabled'}</Table.Td>
                  <Table.Td>{v.redemption?.redeemed_quantity ?? 0}</Table.Td>
                  <Table.Td>{v.holder_id ?? '—'}</Table.Td>
                  {can('POST', '/v1/publications') && (
                    <Table.Td>
                      <Button size="compact-xs" variant="light" onClick={() => publish(v)} aria-label={`Publish ${v.code}`}>
                        Publish
                      </Button>
                    </Table.Td>
                  )}
                </Table.Tr>
              ))}
            </DataTable>
            <Pager page={page} limit={LIMIT} count={vouchers.data.items.length} total={vouchers.data.total} onPage={setPage} />
          </>
        )}
        {vouchers.isError && <Text c="red">{messageOf(vouchers.error)}</Text>}
      </Card>
      )}
    </Stack>
  );
}

/** A promotion's tiers in the order they apply, each with its discount and rule. */
function TiersCard({ tiers }: { tiers: PromotionTier[] }) {
  return (
    <Card withBorder>
      <Title order={2} size="h5" mb="xs">
        Tiers
      </Title>
      <DataTable columns={['#', 'Tier', 'Discount', 'Rule', 'Status']} minWidth={520}>
        {[...tiers]
          .sort((a, b) => a.hierarchy - b.hierarchy)
          .map((tier) => (
            <Table.Tr key={tier.id} data-testid={`tier-row-${tier.id}`}>
              <Table.Td>{tier.hierarchy}</Table.Td>
              <Table.Td>
                <Text size="sm" fw={500}>
                  {tier.name}
                </Text>
                {tier.banner && (
                  <Text size="xs" c="dimmed">
                    {tier.banner}
                  </Text>
                )}
              </Table.Td>
              <Table.Td>{discountOfText(tier.action?.discount)}</Table.Td>
              <Table.Td>
                {(tier.validation_rule_assignments?.data ?? []).length === 0 ? (
                  <Text size="sm" c="dimmed">
                    every order
                  </Text>
                ) : (
                  (tier.validation_rule_assignments?.data ?? []).map((a) => <RuleSummary key={a.rule_id} ruleId={a.rule_id} />)
                )}
              </Table.Td>
              <Table.Td>{tier.active ? 'active' : 'disabled'}</Table.Td>
            </Table.Tr>
          ))}
      </DataTable>
    </Card>
  );
}
