import { localDate, localTime } from '../validity/validity.ts';

// The calendar periods of the periodic rule counters (`*.daily`, `*.weekly`, `*.monthly`): the current
// day, week (from Monday) and month in the project's time zone. Pure.

export type CounterPeriod = 'daily' | 'weekly' | 'monthly';

const DAY_MS = 86_400_000;

/** The instant the current period began, as a stored timestamp (UTC with milliseconds). */
export function periodStart(now: Date, timeZone: string, period: CounterPeriod): string {
  const local = localTime(now, timeZone);
  const withinMinute = now.getTime() % 60_000;
  const dayStart = now.getTime() - withinMinute - local.minutes * 60_000;
  let start = dayStart;
  if (period === 'weekly') start = dayStart - ((local.dayOfWeek + 6) % 7) * DAY_MS;
  if (period === 'monthly') start = dayStart - (Number(localDate(now, timeZone).slice(8, 10)) - 1) * DAY_MS;
  return new Date(start).toISOString();
}
