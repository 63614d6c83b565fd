import { Anchor, Badge, Group, Loader, Stack, Tabs } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link, useParams, useSearchParams } from 'react-router';
import { api } from '../../api/client.ts';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import type { Campaign } from '../campaigns/list.tsx';
import { EarningRulesTab } from './earning-rules.tsx';
import { MembersTab } from './members.tsx';
import { RewardsTab } from './rewards.tsx';
import { TiersTab } from './tiers.tsx';

// One loyalty program: its earning rules, rewards (with stock), tiers and members, one tab each (the tab
// is in the address, so a link or a reload keeps it).

const TABS = [
  { value: 'earning-rules', label: 'Earning rules' },
  { value: 'rewards', label: 'Rewards' },
  { value: 'tiers', label: 'Tiers' },
  { value: 'members', label: 'Members' },
] as const;

export function LoyaltyProgramPage() {
  const { campaignId = '' } = useParams();
  const [search, setSearch] = useSearchParams();
  const tab = TABS.find((t) => t.value === search.get('tab'))?.value ?? 'earning-rules';
  const program = useQuery({ queryKey: ['loyalty', campaignId], queryFn: () => api<Campaign>('GET', `/v1/loyalties/${encodeURIComponent(campaignId)}`) });

  if (program.isPending) return <Loader aria-label="Loading program" />;
  if (program.isError) return <ErrorAlert error={program.error} title="Program not found" />;
  const c = program.data;
  const expiry = c.voucher?.loyalty_card?.expiration_rules;
  return (
    <Stack>
      <PageHeader
        title={c.name}
        description={`Cards start with ${c.voucher?.loyalty_card?.points ?? 0} points; ${expiry?.period_type === 'MONTH' ? `points expire after ${expiry.period_value ?? 0} month(s)` : expiry ? 'points expire by the program’s rule' : 'points never expire'}.`}
        actions={
          <Group gap="xs">
            <Badge color={c.active ? 'green' : 'gray'} variant="light">
              {c.active ? 'active' : 'disabled'}
            </Badge>
            <Anchor component={Link} to={`/campaigns/${c.id}`} size="sm">
              Campaign settings
            </Anchor>
          </Group>
        }
      />
      <Tabs value={tab} onChange={(value) => setSearch(value ? { tab: value } : {}, { replace: true })} keepMounted={false}>
        {/* One row at any width: at a phone's width the tabs scroll sideways instead of wrapping. */}
        <Tabs.List style={{ flexWrap: 'nowrap', overflowX: 'auto', overflowY: 'hidden', scrollbarWidth: 'none' }} data-testid="loyalty-tabs">
          {TABS.map((t) => (
            <Tabs.Tab key={t.value} value={t.value} style={{ flexShrink: 0 }}>
              {t.label}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        <Tabs.Panel value="earning-rules" pt="md">
          <EarningRulesTab campaignId={c.id} />
        </Tabs.Panel>
        <Tabs.Panel value="rewards" pt="md">
          <RewardsTab campaignId={c.id} />
        </Tabs.Panel>
        <Tabs.Panel value="tiers" pt="md">
          <TiersTab campaignId={c.id} />
        </Tabs.Panel>
        <Tabs.Panel value="members" pt="md">
          <MembersTab campaignId={c.id} />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
