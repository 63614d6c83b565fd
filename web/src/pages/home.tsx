import { BarChart, LineChart } from '@mantine/charts';
import { Alert, Card, Loader, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { DatePickerInput, type DatesRangeValue } from '@mantine/dates';
import { useQuery } from '@tanstack/react-query';
import dayjs from 'dayjs';
import { useState } from 'react';
import { api, withQuery } from '../api/client.ts';
import { messageOf } from '../api/field-errors.ts';
import { PageHeader } from '../components/PageHeader.tsx';
import { count, labelledDays, money } from '../components/format.ts';

// Home: the project's figures per day from GET /v1/reports/daily (computed from the records themselves).

interface DailyFigures {
  date: string;
  redemptions: number;
  failed_redemptions: number;
  rollbacks: number;
  discount_amount: number;
  points_issued: number;
  points_spent: number;
}

interface DailyReport {
  start_date: string;
  end_date: string;
  timezone: string;
  active_campaigns: number;
  totals: Omit<DailyFigures, 'date'>;
  data: DailyFigures[];
}

function Stat({ label, value, testId }: { label: string; value: string; testId: string }) {
  return (
    <Card withBorder padding="md">
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text size="xl" fw={700} data-testid={testId}>
        {value}
      </Text>
    </Card>
  );
}

export function HomePage() {
  const [range, setRange] = useState<DatesRangeValue<string>>([dayjs().subtract(29, 'day').format('YYYY-MM-DD'), dayjs().format('YYYY-MM-DD')]);
  const [start, end] = range;
  const report = useQuery({
    queryKey: ['report', start, end],
    enabled: Boolean(start && end),
    queryFn: () => api<DailyReport>('GET', withQuery('/v1/reports/daily', { start_date: start, end_date: end })),
  });

  return (
    <Stack>
      <PageHeader
        title="Home"
        description={report.data ? `Days in ${report.data.timezone}, the project's time zone` : undefined}
        actions={
          <DatePickerInput
            type="range"
            aria-label="Date range"
            value={range}
            onChange={setRange}
            valueFormat="YYYY-MM-DD"
            maxDate={dayjs().add(1, 'day').format('YYYY-MM-DD')}
            w={260}
            data-testid="date-range"
          />
        }
      />
      {report.isPending && <Loader aria-label="Loading figures" />}
      {report.isError && (
        <Alert color="red" title="Could not load the figures">
          {messageOf(report.error)}
        </Alert>
      )}
      {report.data && (
        <>
          <SimpleGrid cols={{ base: 2, md: 5 }}>
            <Stat label="Redemptions" value={count(report.data.totals.redemptions)} testId="total-redemptions" />
            <Stat label="Discount granted" value={money(report.data.totals.discount_amount)} testId="total-discount" />
            <Stat label="Points issued" value={count(report.data.totals.points_issued)} testId="total-points-issued" />
            <Stat label="Points spent" value={count(report.data.totals.points_spent)} testId="total-points-spent" />
            <Stat label="Active campaigns" value={count(report.data.active_campaigns)} testId="active-campaigns" />
          </SimpleGrid>
          <Card withBorder>
            <Title order={2} size="h4" mb="sm">
              Redemptions per day
            </Title>
            <BarChart
              h={240}
              data={labelledDays(report.data.data)}
              dataKey="day"
              series={[
                { name: 'redemptions', label: 'Redeemed', color: 'blue.6' },
                { name: 'rollbacks', label: 'Rolled back', color: 'orange.6' },
                { name: 'failed_redemptions', label: 'Failed', color: 'red.4' },
              ]}
              withLegend
              tickLine="y"
              data-testid="redemptions-chart"
            />
          </Card>
          <SimpleGrid cols={{ base: 1, md: 2 }}>
            <Card withBorder>
              <Title order={2} size="h4" mb="sm">
                Discount granted per day
              </Title>
              <LineChart
                h={200}
                data={labelledDays(report.data.data).map((d) => ({ day: d.day, discount: d.discount_amount / 100 }))}
                dataKey="day"
                series={[{ name: 'discount', label: 'Discount', color: 'teal.6' }]}
                curveType="linear"
                tickLine="y"
              />
            </Card>
            <Card withBorder>
              <Title order={2} size="h4" mb="sm">
                Loyalty points per day
              </Title>
              <BarChart
                h={200}
                data={labelledDays(report.data.data)}
                dataKey="day"
                series={[
                  { name: 'points_issued', label: 'Issued', color: 'grape.6' },
                  { name: 'points_spent', label: 'Spent', color: 'yellow.6' },
                ]}
                withLegend
                tickLine="y"
              />
            </Card>
          </SimpleGrid>
        </>
      )}
    </Stack>
  );
}
