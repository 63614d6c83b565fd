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

// Reading a wall clock through Intl costs microseconds per call, and a request may ask several times
// (a voucher's validity, each expiry date it renders). A zone's offset from UTC, and every change of it,
// falls on a quarter hour in every zone since 1972 (tzdb), so the offset found for one instant serves
// its whole quarter hour: one Intl lookup per zone and quarter hour, the rest is arithmetic.
const QUARTER_HOUR_MS = 15 * 60_000;
const QUARTER_HOURS_SINCE = Date.UTC(1972, 6, 1);
const offsetFormatters = new Map<string, Intl.DateTimeFormat>();
const lastOffsets = new Map<string, { quarter: number; offsetMs: number }>();

/** Wall-clock time of `ms` in `timeZone` minus UTC, in ms (Intl; no cache). */
function readOffsetMs(ms: number, timeZone: string): number {
  let formatter = offsetFormatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric', hourCycle: 'h23' });
    offsetFormatters.set(timeZone, formatter);
  }
  const part: Record<string, number> = {};
  for (const p of formatter.formatToParts(new Date(ms))) if (p.type !== 'literal') part[p.type] = Number(p.value);
  const wall = Date.UTC(part.year ?? 1970, (part.month ?? 1) - 1, part.day ?? 1, part.hour ?? 0, part.minute ?? 0, part.second ?? 0);
  return wall - Math.floor(ms / 1000) * 1000;
}

/** The instant shifted to the zone's wall clock, read with the UTC getters. */
function wallClock(at: Date, timeZone: string): Date {
  const ms = at.getTime();
  const offset = GMT_OFFSET.exec(timeZone);
  if (offset) {
    const sign = offset[1] === '-' ? -1 : 1;
    return new Date(ms + sign * (Number(offset[2]) * 60 + Number(offset[3])) * 60_000);
  }
  if (ms < QUARTER_HOURS_SINCE) return new Date(ms + readOffsetMs(ms, timeZone));
  const quarter = Math.floor(ms / QUARTER_HOUR_MS);
  let last = lastOffsets.get(timeZone);
  if (last?.quarter !== quarter) {
    last = { quarter, offsetMs: readOffsetMs(quarter * QUARTER_HOUR_MS, timeZone) };
    lastOffsets.set(timeZone, last);
  }
  return new Date(ms + last.offsetMs);
}

export function localTime(at: Date, timeZone: string): LocalTime {
  const wall = wallClock(at, timeZone);
  return { dayOfWeek: wall.getUTCDay(), minutes: wall.getUTCHours() * 60 + wall.getUTCMinutes() };
}

/** The calendar date (YYYY-MM-DD) of an instant in a time zone: the day points expire by. */
export function localDate(at: Date, timeZone: string): string {
  return wallClock(at, timeZone).toISOString().slice(0, 10);
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
