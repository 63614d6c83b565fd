import { BarChart, LineChart } from '@mantine/charts';
import { Anchor, Card, Group, Loader, Progress, SegmentedControl, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import dayjs from 'dayjs';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, withQuery } from '../../api/client.ts';
import { useCan } from '../../app/session.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { count, labelledDays, money } from '../../components/format.ts';
import type { Campaign } from './list.tsx';

// A campaign's statistics from GET /v1/reports/daily?campaign_id=… (figures computed by the database from
// the campaign's own records): redemptions and discount (or points) per day of the last 30 or 90 days,
// how many of its codes are published and redeemed, and its most redeemed codes. Shown to roles that may
// read reports.

interface DailyFigures {
  date: string;
  redemptions: number;
  failed_redemptions: number;
  rollbacks: number;
  discount_amount: number;
  points_issued: number;
  points_spent: number;
}

interface CampaignReport {
  timezone: string;
  totals: Omit<DailyFigures, 'date'>;
  data: DailyFigures[];
  campaign: {
    codes: { total: number; published: number; redeemed: number };
    top_codes: Array<{ code: string; redemptions: number; discount_amount: number }>;
  };
}

function Figure({ label, value, testId }: { label: string; value: string; testId: string }) {
  return (
    <Card withBorder padding="sm">
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text fw={700} data-testid={testId}>
        {value}
      </Text>
    </Card>
  );
}

const share = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((part / whole) * 100));

function CodeShare({ label, part, whole, color, testId }: { label: string; part: number; whole: number; color: string; testId: string }) {
  return (
    <Stack gap={4}>
      <Text size="sm">
        <b data-testid={testId}>{count(part)}</b> of {count(whole)} codes {label}
      </Text>
      <Progress value={share(part, whole)} color={color} size="md" aria-label={`Codes ${label}`} />
    </Stack>
  );
}

export function CampaignStats({ campaign }: { campaign: Campaign }) {
  const can = useCan();
  const [days, setDays] = useState('30');
  const end = dayjs().format('YYYY-MM-DD');
  const start = dayjs().subtract(Number(days) - 1, 'day').format('YYYY-MM-DD');
  const allowed = can('GET', '/v1/reports/daily');
  const report = useQuery({
    queryKey: ['report', 'campaign', campaign.id, start, end],
    enabled: allowed,
    queryFn: () => api<CampaignReport>('GET', withQuery('/v1/reports/daily', { start_date: start, end_date: end, campaign_id: campaign.id })),
  });
  if (!allowed) return null;
  const loyalty = campaign.campaign_type === 'LOYALTY_PROGRAM';
  const withCodes = campaign.campaign_type !== 'PROMOTION';
  const r = report.data;

  return (
    <Card withBorder data-testid="campaign-stats">
      <Group justify="space-between" mb="sm" wrap="wrap">
        <Title order={2} size="h5">
          Statistics
        </Title>
        <SegmentedControl
          size="xs"
          aria-label="Statistics period"
          value={days}
          onChange={setDays}
          data={[
            { value: '30', label: '30 days' },
            { value: '90', label: '90 days' },
          ]}
        />
      </Group>
      {report.isPending && <Loader size="sm" aria-label="Loading statistics" />}
      <ErrorAlert error={report.error} />
      {r && (
        <Stack gap="md">
          <SimpleGrid cols={{ base: 2, sm: 4 }}>
            <Figure label={`Redemptions, ${days} days`} value={count(r.totals.redemptions)} testId="stats-redemptions" />
            <Figure label="Rolled back" value={count(r.totals.rollbacks)} testId="stats-rollbacks" />
            {loyalty ? (
              <Figure label="Points issued" value={count(r.totals.points_issued)} testId="stats-points" />
            ) : (
              <Figure label="Discount granted" value={money(r.totals.discount_amount)} testId="stats-discount" />
            )}
            <Figure label="Refused" value={count(r.totals.failed_redemptions)} testId="stats-failed" />
          </SimpleGrid>
          {withCodes && (
            <SimpleGrid cols={{ base: 1, sm: 2 }} data-testid="stats-codes">
              <CodeShare label="published" part={r.campaign.codes.published} whole={r.campaign.codes.total} color="blue" testId="stats-published" />
              <CodeShare label="redeemed at least once" part={r.campaign.codes.redeemed} whole={r.campaign.codes.total} color="teal" testId="stats-redeemed" />
            </SimpleGrid>
          )}
          <SimpleGrid cols={{ base: 1, md: 2 }}>
            <div>
              <Text size="sm" fw={500} mb={4}>
                Redemptions per day
              </Text>
              <BarChart
                h={180}
                data={labelledDays(r.data)}
                dataKey="day"
                series={[
                  { name: 'redemptions', label: 'Redeemed', color: 'blue.6' },
                  { name: 'rollbacks', label: 'Rolled back', color: 'orange.6' },
                ]}
                tickLine="y"
                data-testid="stats-redemptions-chart"
              />
            </div>
            <div>
              <Text size="sm" fw={500} mb={4}>
                {loyalty ? 'Points issued per day' : 'Discount granted per day'}
              </Text>
              <LineChart
                h={180}
                data={labelledDays(r.data).map((d) => ({ day: d.day, value: loyalty ? d.points_issued : d.discount_amount / 100 }))}
                dataKey="day"
                series={[{ name: 'value', label: loyalty ? 'Points' : 'Discount', color: 'teal.6' }]}
                curveType="linear"
                tickLine="y"
              />
            </div>
          </SimpleGrid>
          {withCodes && (
            <div>
              <Text size="sm" fw={500} mb={4}>
                Most redeemed codes
              </Text>
              {r.campaign.top_codes.length === 0 ? (
                <Text size="sm" c="dimmed">
                  No code redeemed in these days.
                </Text>
              ) : (
                <DataTable columns={['Code', 'Redemptions', loyalty ? '' : 'Discount']} minWidth={320}>
                  {r.campaign.top_codes.map((c) => (
                    <Table.Tr key={c.code} data-testid={`top-code-${c.code}`}>
                      <Table.Td>
                        <Anchor component={Link} to={`/vouchers/${encodeURIComponent(c.code)}`}>
                          <code>{c.code}</code>
                        </Anchor>
                      </Table.Td>
                      <Table.Td>{count(c.redemptions)}</Table.Td>
                      <Table.Td>{loyalty ? '' : money(c.discount_amount)}</Table.Td>
                    </Table.Tr>
                  ))}
                </DataTable>
              )}
            </div>
          )}
        </Stack>
      )}
    </Card>
  );
}
