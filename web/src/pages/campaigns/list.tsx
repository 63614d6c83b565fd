import { Badge, Button, Card, Group, Loader, Menu, Select, Table, Text, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, listOf, withQuery } from '../../api/client.ts';
import { useCan } from '../../app/session.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { Pager } from '../../components/Pager.tsx';
import { dateTime } from '../../components/format.ts';

export interface Campaign {
  id: string;
  name: string;
  campaign_type: string;
  type: string;
  active: boolean;
  vouchers_count: number;
  description: string | null;
  start_date: string | null;
  expiration_date: string | null;
  validity_timeframe?: { interval: string; duration: string };
  validity_day_of_week?: number[];
  validity_hours?: Record<string, unknown>;
  category?: string;
  metadata?: Record<string, unknown>;
  join_once?: boolean;
  auto_join?: boolean;
  use_voucher_metadata_schema?: boolean;
  activity_duration_after_publishing?: string;
  created_at: string;
  voucher?: {
    type: string;
    discount?: { type: string; percent_off?: number; amount_off?: number };
    gift?: { amount: number; effect?: string };
    loyalty_card?: { points: number; expiration_rules?: { period_type: string; period_value?: number } };
    redemption?: { quantity: number | null };
    code_config?: Record<string, unknown>;
    is_referral_code?: boolean;
  };
  promotion?: { tiers: PromotionTier[]; total: number };
  referral_program?: { conversion_event_type?: string; referee_reward?: { type: string; amount: number; related_object_parent: { id?: string; name?: string } } };
  loyalty_tiers_expiration?: Record<string, unknown>;
  validation_rules_assignments?: { data?: Array<{ id: string; rule_id: string }> };
  vouchers_generation_status?: string;
}

export interface PromotionTier {
  id: string;
  name: string;
  banner?: string | null;
  active: boolean;
  hierarchy: number;
  action?: { discount?: { type: string; percent_off?: number; amount_off?: number } | null } | null;
  metadata?: Record<string, unknown>;
  start_date?: string | null;
  expiration_date?: string | null;
  validity_timeframe?: { interval: string; duration: string } | null;
  validity_day_of_week?: number[] | null;
  validity_hours?: Record<string, unknown> | null;
  validation_rule_assignments?: { data?: Array<{ rule_id: string }> };
}

/** The forms for each kind of campaign (the coupon form is the primary button). */
const OTHER_FORMS = [
  { to: '/campaigns/new/promotion', label: 'Promotion (with tiers)' },
  { to: '/campaigns/new/gift', label: 'Gift cards' },
  { to: '/campaigns/new/loyalty', label: 'Loyalty program' },
  { to: '/campaigns/new/referral', label: 'Referral program' },
];

const TYPES = ['DISCOUNT_COUPONS', 'PROMOTION', 'GIFT_VOUCHERS', 'LOYALTY_PROGRAM', 'REFERRAL_PROGRAM'];
const LIMIT = 20;

export function CampaignsPage() {
  const [page, setPage] = useState(1);
  const can = useCan();
  const [type, setType] = useState<string | null>(null);
  const [search, setSearch] = useState('');
  const list = useQuery({
    queryKey: ['campaigns', page, type],
    queryFn: async () => listOf<Campaign>(await api('GET', withQuery('/v1/campaigns', { limit: LIMIT, page, campaign_type: type, order: '-created_at' }))),
  });
  const shown = (list.data?.items ?? []).filter((c) => search === '' || c.name.toLowerCase().includes(search.trim().toLowerCase()) || c.id === search.trim());

  return (
    <>
      <PageHeader
        title="Campaigns"
        actions={
          can('POST', '/v1/campaigns') && (
          <>
            <Button component={Link} to="/campaigns/new">
              New coupon campaign
            </Button>
            <Menu position="bottom-end" withinPortal>
              <Menu.Target>
                <Button variant="light">Other types ▾</Button>
              </Menu.Target>
              <Menu.Dropdown>
                {OTHER_FORMS.map((form) => (
                  <Menu.Item key={form.to} component={Link} to={form.to}>
                    {form.label}
                  </Menu.Item>
                ))}
              </Menu.Dropdown>
            </Menu>
          </>
          )
        }
      />
      <Card withBorder>
        <Group mb="sm" align="flex-end" wrap="wrap">
          {/* A search form: Enter submits it, which filters as typing does (it once opened a campaign by that name). */}
          <form role="search" aria-label="Search campaigns" onSubmit={(e) => e.preventDefault()}>
            <TextInput label="Search" description="Name or id; filters the campaigns on this page" value={search} onChange={(e) => setSearch(e.currentTarget.value)} w={300} maw="100%" />
          </form>
          <Select label="Type" placeholder="All types" clearable data={TYPES} value={type} onChange={(v) => { setType(v); setPage(1); }} w={220} />
        </Group>
        {list.isPending && <Loader aria-label="Loading campaigns" />}
        <ErrorAlert error={list.error} />
        {list.data && (
          <>
            <DataTable columns={['Name', 'Type', 'Status', 'Codes', 'Created']} minWidth={600} highlightOnHover>
              {shown.map((c) => (
                <Table.Tr key={c.id}>
                  <Table.Td>
                    <Link to={`/campaigns/${c.id}`}>{c.name}</Link>
                  </Table.Td>
                  <Table.Td>{c.campaign_type}</Table.Td>
                  <Table.Td>
                    <Badge color={c.active ? 'green' : 'gray'} variant="light">
                      {c.active ? 'active' : 'disabled'}
                    </Badge>
                  </Table.Td>
                  <Table.Td>{c.vouchers_count}</Table.Td>
                  <Table.Td>{dateTime(c.created_at)}</Table.Td>
                </Table.Tr>
              ))}
            </DataTable>
            {shown.length === 0 && <Text c="dimmed">No campaigns here.</Text>}
            <Pager page={page} limit={LIMIT} count={list.data.items.length} total={list.data.total} onPage={setPage} />
          </>
        )}
      </Card>
    </>
  );
}
