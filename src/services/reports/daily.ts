import { startOfLocalDay } from '../../domain/time/local-day.ts';
import { localDate } from '../../domain/validity/validity.ts';
import { errors } from '../../domain/errors.ts';
import { findProject } from '../../store/projects.ts';
import { findLiveCampaign } from '../../store/campaigns.ts';
import { codeCounts, countActiveCampaigns, pointsSlots, redemptionSlots, topCodes, type CodeCounts, type TopCode } from '../../store/reports.ts';
import type { Deps } from '../context.ts';

// The console's home figures (GET /v1/reports/daily, a Punchcard extension): per calendar day of the
// project's time zone, the redemptions, the discount they still grant, and the loyalty points issued and
// spent; and how many campaigns are active now. Read-only, computed from the records themselves. With
// `campaign_id` the figures are that campaign's alone, with its codes and most redeemed codes (the
// campaign page's statistics).

export const MAX_REPORT_DAYS = 366;

export interface DailyFigures {
  date: string;
  redemptions: number;
  failed_redemptions: number;
  rollbacks: number;
  discount_amount: number;
  points_issued: number;
  points_spent: number;
}

export interface DailyReport {
  object: 'daily_report';
  start_date: string;
  end_date: string;
  timezone: string;
  active_campaigns: number;
  totals: Omit<DailyFigures, 'date'>;
  data: DailyFigures[];
  campaign?: { id: string; name: string; codes: CodeCounts; top_codes: TopCode[] };
}

const TOP_CODES = 10;

function nextDay(day: string): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + 1)).toISOString().slice(0, 10);
}

function previousDay(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
}

// Years 1000–9998: four digits on both sides of the range, including the day after its end.
function validDay(day: string): boolean {
  if (!/^[1-9]\d{3}-\d{2}-\d{2}$/.test(day) || day >= '9999') return false;
  const parsed = new Date(`${day}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === day;
}

export async function dailyReport(
  deps: Deps,
  projectId: string,
  query: { start_date?: string | undefined; end_date?: string | undefined; campaign_id?: string | undefined },
): Promise<DailyReport> {
  const project = await findProject(deps.db, projectId);
  if (!project) throw errors.notFound('project', projectId);
  const campaign = query.campaign_id === undefined ? undefined : await findLiveCampaign(deps.db, projectId, query.campaign_id);
  if (query.campaign_id !== undefined && !campaign) throw errors.notFound('campaign', query.campaign_id);
  const timezone = project.timezone;
  const now = deps.clock.now();
  const endDate = query.end_date ?? localDate(now, timezone);
  if (!validDay(endDate)) throw errors.invalidQuery(`Query .end_date must be a date (YYYY-MM-DD), got '${endDate}'`);
  let startDate = query.start_date;
  if (startDate === undefined) {
    // The default range: the 30 days that end with end_date.
    startDate = endDate;
    for (let i = 0; i < 29; i++) startDate = previousDay(startDate);
  }
  if (!validDay(startDate)) throw errors.invalidQuery(`Query .start_date must be a date (YYYY-MM-DD), got '${startDate}'`);
  if (startDate > endDate) throw errors.invalidQuery('Query .start_date must not be after .end_date');

  const days: string[] = [];
  for (let day = startDate; day <= endDate; day = nextDay(day)) {
    days.push(day);
    if (days.length > MAX_REPORT_DAYS) throw errors.invalidQuery(`Query covers more than ${MAX_REPORT_DAYS} days; ask for a shorter range`);
  }
  const from = startOfLocalDay(startDate, timezone).toISOString();
  const to = startOfLocalDay(nextDay(endDate), timezone).toISOString();

  const figures = new Map<string, DailyFigures>(
    days.map((date) => [date, { date, redemptions: 0, failed_redemptions: 0, rollbacks: 0, discount_amount: 0, points_issued: 0, points_spent: 0 }]),
  );
  // A slot is ten minutes long, so its start names its local day in any zone.
  const dayOf = (slot: string) => figures.get(localDate(new Date(`${slot}0:00.000Z`), timezone));
  for (const slot of await redemptionSlots(deps.db, projectId, from, to, campaign?.id)) {
    const day = dayOf(slot.slot);
    if (!day) continue;
    day.redemptions += slot.redeemed;
    day.failed_redemptions += slot.failed;
    day.rollbacks += slot.rolled_back;
    day.discount_amount += slot.discount;
  }
  for (const slot of await pointsSlots(deps.db, projectId, from, to, campaign?.id)) {
    const day = dayOf(slot.slot);
    if (!day) continue;
    day.points_issued += slot.issued;
    day.points_spent += slot.spent;
  }
  const data = [...figures.values()];
  const totals = { redemptions: 0, failed_redemptions: 0, rollbacks: 0, discount_amount: 0, points_issued: 0, points_spent: 0 };
  for (const day of data) for (const key of Object.keys(totals) as Array<keyof typeof totals>) totals[key] += day[key];
  return {
    object: 'daily_report',
    start_date: startDate,
    end_date: endDate,
    timezone,
    active_campaigns: await countActiveCampaigns(deps.db, projectId, now.toISOString()),
    totals,
    data,
    ...(campaign
      ? {
          campaign: {
            id: campaign.id,
            name: campaign.name,
            codes: await codeCounts(deps.db, projectId, campaign.id),
            top_codes: await topCodes(deps.db, projectId, campaign.id, from, to, TOP_CODES),
          },
        }
      : {}),
  };
}
