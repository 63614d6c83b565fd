// ISO 8601 durations (`P1D`, `PT15M`, `P1Y2M3W4DT5H6M7.5S`), used by rate limits, validity timeframes and
// expiry rules.

export interface IsoDuration {
  years: number;
  months: number;
  weeks: number;
  days: number;
  hours: number;
  minutes: number;
  seconds: number;
}

const PATTERN =
  /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/;

export function parseIsoDuration(text: string): IsoDuration | null {
  const m = PATTERN.exec(text);
  if (!m || text === 'P' || text.endsWith('T')) return null;
  const n = (i: number) => (m[i] === undefined ? 0 : Number(m[i]));
  return { years: n(1), months: n(2), weeks: n(3), days: n(4), hours: n(5), minutes: n(6), seconds: n(7) };
}

/** Adds a duration to an instant in UTC calendar terms (months and years keep the day of month, clamped). */
export function addIsoDuration(at: Date, d: IsoDuration): Date {
  const out = new Date(at.getTime());
  if (d.years || d.months) {
    const day = out.getUTCDate();
    out.setUTCDate(1);
    out.setUTCMonth(out.getUTCMonth() + d.years * 12 + d.months);
    const lastDay = new Date(Date.UTC(out.getUTCFullYear(), out.getUTCMonth() + 1, 0)).getUTCDate();
    out.setUTCDate(Math.min(day, lastDay));
  }
  const ms = (((d.weeks * 7 + d.days) * 24 + d.hours) * 60 + d.minutes) * 60_000 + d.seconds * 1000;
  return new Date(out.getTime() + ms);
}

/** Approximate length in milliseconds (a month counts 30 days, a year 365) for fixed windows. */
export function isoDurationMs(d: IsoDuration): number {
  const days = d.years * 365 + d.months * 30 + d.weeks * 7 + d.days;
  return ((days * 24 + d.hours) * 60 + d.minutes) * 60_000 + d.seconds * 1000;
}
