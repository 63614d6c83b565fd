import { addIsoDuration, isoDurationMs, parseIsoDuration, type IsoDuration } from '../time/iso-duration.ts';

// When a campaign, voucher, promotion tier or earning rule may be used (loyalty reference 1.8): the
// `active` toggle, the start/expiration dates, and the recurring limits (timeframe, days of week, daily
// hours). Days and hours are read in the project's time zone. Pure: the instant is passed in.

export interface ValidityTimeframe {
  interval: string;
  duration: string;
}

export interface DailyHours {
  start_time: string;
  expiration_time: string;
  days_of_week: number[];
}

export interface ValidityWindow {
  active?: boolean | null | undefined;
  start_date?: string | null | undefined;
  expiration_date?: string | null | undefined;
  validity_timeframe?: ValidityTimeframe | null | undefined;
  validity_day_of_week?: number[] | null | undefined;
  validity_hours?: { daily?: DailyHours[] | null } | null | undefined;
}

export type InactiveReason = 'disabled' | 'not_started' | 'expired' | 'outside_timeframe' | 'outside_day_of_week' | 'outside_hours';

/** The local calendar position of an instant in a time zone (IANA name or `GMT±HH:MM`). */
export interface LocalTime {
  dayOfWeek: number;
  minutes: number;
}

const GMT_OFFSET = /^GMT([+-])(\d{2}):(\d{2})$/;
const WEEKDAYS: Record<string, number> = { Sun: 0, Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6 };
const formatters = new Map<string, Intl.DateTimeFormat>();

export function localTime(at: Date, timeZone: string): LocalTime {
  const offset = GMT_OFFSET.exec(timeZone);
  if (offset) {
    const sign = offset[1] === '-' ? -1 : 1;
    const shifted = new Date(at.getTime() + sign * (Number(offset[2]) * 60 + Number(offset[3])) * 60_000);
    return { dayOfWeek: shifted.getUTCDay(), minutes: shifted.getUTCHours() * 60 + shifted.getUTCMinutes() };
  }
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', { timeZone, weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    formatters.set(timeZone, formatter);
  }
  const parts = Object.fromEntries(formatter.formatToParts(at).map((p) => [p.type, p.value]));
  return { dayOfWeek: WEEKDAYS[parts.weekday ?? 'Sun'] ?? 0, minutes: Number(parts.hour) * 60 + Number(parts.minute) };
}

const dateFormatters = new Map<string, Intl.DateTimeFormat>();

/** The calendar date (YYYY-MM-DD) of an instant in a time zone: the day points expire by. */
export function localDate(at: Date, timeZone: string): string {
  const offset = GMT_OFFSET.exec(timeZone);
  if (offset) {
    const sign = offset[1] === '-' ? -1 : 1;
    return new Date(at.getTime() + sign * (Number(offset[2]) * 60 + Number(offset[3])) * 60_000).toISOString().slice(0, 10);
  }
  let formatter = dateFormatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    dateFormatters.set(timeZone, formatter);
  }
  return formatter.format(at);
}

function hhmm(text: string): number {
  const [h, m] = text.split(':').map(Number) as [number, number];
  return h * 60 + m;
}

/** Whether `at` falls in one of the windows `interval` apart, each `duration` long, from `start`. */
function inTimeframe(start: Date, interval: IsoDuration, duration: IsoDuration, at: Date): boolean {
  if (at < start) return false;
  const calendar = interval.years > 0 || interval.months > 0;
  let windowStart = start;
  if (!calendar) {
    const step = isoDurationMs(interval);
    if (step <= 0) return false;
    windowStart = new Date(start.getTime() + Math.floor((at.getTime() - start.getTime()) / step) * step);
  } else {
    // Months have no fixed length: walk window by window (bounded, a window at most every month).
    for (let i = 0; i < 100_000; i++) {
      const next = addIsoDuration(windowStart, interval);
      if (next > at) break;
      windowStart = next;
    }
  }
  return at < addIsoDuration(windowStart, duration);
}

function inDailyHours(daily: readonly DailyHours[], local: LocalTime): boolean {
  return daily.some((window) => {
    const from = hhmm(window.start_time);
    const to = hhmm(window.expiration_time);
    const days = window.days_of_week;
    if (from <= to) return days.includes(local.dayOfWeek) && local.minutes >= from && local.minutes < to;
    // A window past midnight belongs to the day it starts on.
    const yesterday = (local.dayOfWeek + 6) % 7;
    return (days.includes(local.dayOfWeek) && local.minutes >= from) || (days.includes(yesterday) && local.minutes < to);
  });
}

/** Why the window is closed at `at`, or null when it is open. Start and expiration are inclusive. */
export function inactiveReason(window: ValidityWindow, at: Date, timeZone: string): InactiveReason | null {
  if (window.active === false) return 'disabled';
  if (window.start_date && at < new Date(window.start_date)) return 'not_started';
  if (window.expiration_date && at > new Date(window.expiration_date)) return 'expired';
  const timeframe = window.validity_timeframe;
  if (timeframe && window.start_date) {
    const interval = parseIsoDuration(timeframe.interval);
    const duration = parseIsoDuration(timeframe.duration);
    if (interval && duration && !inTimeframe(new Date(window.start_date), interval, duration, at)) return 'outside_timeframe';
  }
  const days = window.validity_day_of_week;
  const daily = window.validity_hours?.daily;
  if ((days && days.length > 0) || (daily && daily.length > 0)) {
    const local = localTime(at, timeZone);
    if (days && days.length > 0 && !days.includes(local.dayOfWeek)) return 'outside_day_of_week';
    if (daily && daily.length > 0 && !inDailyHours(daily, local)) return 'outside_hours';
  }
  return null;
}

/** Definition checks for the recurring limits; answers the problem or null. */
export function validityProblem(window: ValidityWindow): string | null {
  if (window.start_date && window.expiration_date && new Date(window.expiration_date) < new Date(window.start_date)) {
    return 'expiration_date must not be before start_date';
  }
  const timeframe = window.validity_timeframe;
  if (timeframe) {
    if (!window.start_date) return 'validity_timeframe requires start_date';
    const interval = parseIsoDuration(timeframe.interval);
    const duration = parseIsoDuration(timeframe.duration);
    if (!interval || isoDurationMs(interval) <= 0) return `validity_timeframe.interval '${timeframe.interval}' is not an ISO 8601 duration`;
    if (!duration || isoDurationMs(duration) <= 0) return `validity_timeframe.duration '${timeframe.duration}' is not an ISO 8601 duration`;
    if (isoDurationMs(duration) > isoDurationMs(interval)) return 'validity_timeframe.duration must not be longer than its interval';
  }
  const daily = window.validity_hours?.daily ?? [];
  for (const [i, w] of daily.entries()) {
    if (!/^([01]\d|2[0-3]):[0-5]\d$/.test(w.start_time) || !/^([01]\d|2[0-3]):[0-5]\d$/.test(w.expiration_time)) {
      return `validity_hours.daily[${i}] times must be HH:mm`;
    }
    if (w.start_time === w.expiration_time) return `validity_hours.daily[${i}] must not start and end at the same time`;
  }
  return null;
}
