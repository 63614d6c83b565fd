import { Badge, Button, Card, Group, Loader, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { api } from '../../api/client.ts';
import { useCan } from '../../app/session.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { dateTime, money } from '../../components/format.ts';
import { notifyDone } from '../../components/notify.ts';
import { DeleteButton, DuplicateButton } from './campaign-actions.tsx';
import { CodesCard } from './codes.tsx';
import { discountText } from './form-parts.tsx';
import type { Campaign } from './list.tsx';
import { RuleSummary } from './rule-picker.tsx';
import { CampaignStats } from './stats.tsx';
import { TiersCard } from './tiers.tsx';
import { WEEKDAYS } from './validity-fields.tsx';

// One campaign: its discount and rule, edit, duplicate, delete, enable/disable, a promotion's tiers, its
// statistics, and (in CodesCard) its codes (each action shown only to a role that may take it).

/** The recurring limits inside the dates, in words ('' when there are none). */
function windowsText(c: Campaign): string {
  const parts: string[] = [];
  if (c.validity_day_of_week && c.validity_day_of_week.length > 0) parts.push(`${c.validity_day_of_week.map((d) => WEEKDAYS[d] ?? d).join(', ')} only`);
  if (c.validity_timeframe) parts.push(`${c.validity_timeframe.duration} every ${c.validity_timeframe.interval}`);
  if (c.validity_hours) parts.push('at set hours');
  return parts.join('; ');
}

/** What one code (or, for promotions, the campaign) gives. */
function valueText(campaign: Campaign): string {
  if (campaign.campaign_type === 'PROMOTION') return `${campaign.promotion?.total ?? 0} tier(s)`;
  if (campaign.voucher?.gift) return `${money(campaign.voucher.gift.amount)} credits per card`;
  if (campaign.voucher?.loyalty_card) return `Cards start with ${campaign.voucher.loyalty_card.points} points`;
  return discountText(campaign.voucher?.discount);
}

export function CampaignDetailPage() {
  const { campaignId = '' } = useParams();
  const client = useQueryClient();
  const can = useCan();
  const [actionError, setActionError] = useState<unknown>(null);
  const campaign = useQuery({ queryKey: ['campaign', campaignId], queryFn: () => api<Campaign>('GET', `/v1/campaigns/${encodeURIComponent(campaignId)}`) });
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
          <>
            {can('PUT', '/v1/campaigns/:campaignId') && (
              <Button component={Link} to={`/campaigns/${c.id}/edit`}>
                Edit
              </Button>
            )}
            {can('POST', '/v1/campaigns') && <DuplicateButton campaign={c} />}
            {c.active
              ? can('POST', '/v1/campaigns/:campaignId/disable') && (
                  <Button variant="default" color="red" onClick={() => void toggle(false)}>
                    Disable
                  </Button>
                )
              : can('POST', '/v1/campaigns/:campaignId/enable') && (
                  <Button variant="default" onClick={() => void toggle(true)}>
                    Enable
                  </Button>
                )}
            {can('DELETE', '/v1/campaigns/:campaignId') && <DeleteButton campaign={c} />}
          </>
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
          <Text fw={600}>{valueText(c)}</Text>
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
          {windowsText(c) && (
            <Text size="xs" c="dimmed" data-testid="campaign-windows">
              {windowsText(c)}
            </Text>
          )}
        </Card>
      </SimpleGrid>
      {(c.category || Object.keys(c.metadata ?? {}).length > 0) && (
        <Text size="sm" c="dimmed" data-testid="campaign-details">
          {[c.category ? `Category: ${c.category}` : '', Object.keys(c.metadata ?? {}).length > 0 ? `Metadata: ${Object.entries(c.metadata ?? {}).map(([k, v]) => `${k} = ${typeof v === 'string' ? v : JSON.stringify(v)}`).join(', ')}` : '']
            .filter(Boolean)
            .join(' · ')}
        </Text>
      )}
      {(c.campaign_type !== 'PROMOTION' || ruleIds.length > 0) && (
      <Card withBorder>
        <Title order={2} size="h5" mb="xs">
          Validation rule
        </Title>
        {ruleIds.length === 0 ? <Text size="sm">No rule: every order qualifies.</Text> : ruleIds.map((id) => <RuleSummary key={id} ruleId={id} />)}
      </Card>
      )}
      {c.campaign_type === 'PROMOTION' && <TiersCard campaign={c} />}
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
      <CampaignStats campaign={c} />
      {c.campaign_type !== 'PROMOTION' && <CodesCard campaign={c} onError={setActionError} />}
    </Stack>
  );
}
