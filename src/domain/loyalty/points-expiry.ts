// When added points stop being usable (loyalty reference 2.8.2). Dates are calendar days (YYYY-MM-DD)
// in the project's time zone; the answer is the LAST day the points can be used, as buckets store it.
// Pure: the day the points were earned is passed in.

export interface ExpirationRules {
  period_type: 'MONTH' | 'FIXED_DAY_OF_YEAR';
  period_value?: number | null | undefined;
  rounding_type?: 'END_OF_MONTH' | 'END_OF_QUARTER' | 'END_OF_HALF_YEAR' | 'END_OF_YEAR' | 'PARTICULAR_MONTH' | null | undefined;
  rounding_value?: number | null | undefined;
  fixed_month?: number | null | undefined;
  fixed_day?: number | null | undefined;
}

interface Day {
  year: number;
  /** 1 = January. */
  month: number;
  day: number;
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

function parseDay(text: string): Day {
  const m = DAY.exec(text);
  if (!m) throw new Error(`not a calendar date: ${text}`);
  return { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) };
}

function formatDay(d: Day): string {
  return `${String(d.year).padStart(4, '0')}-${String(d.month).padStart(2, '0')}-${String(d.day).padStart(2, '0')}`;
}

export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** `months` later on the same day of month, or that month's last day when it is shorter (31 Jan + 1 → 28 Feb). */
function addMonths(d: Day, months: number): Day {
  const index = d.year * 12 + (d.month - 1) + months;
  const year = Math.floor(index / 12);
  const month = (index % 12) + 1;
  return { year, month, day: Math.min(d.day, daysInMonth(year, month)) };
}

function endOfMonth(year: number, month: number): Day {
  return { year, month, day: daysInMonth(year, month) };
}

/**
 * The month named by a PARTICULAR_MONTH rounding. The vendor does not say whether `rounding_value` counts
 * from 0 or 1; we read it like `fixed_month` of the same object (1 = January … 12 = December) and take 0
 * as January too, so every value the campaign schema accepts (0–12) names a month.
 */
export function particularMonth(roundingValue: number | null | undefined): number {
  const value = roundingValue ?? 12;
  return Math.min(12, Math.max(1, value));
}

function rounded(d: Day, rules: ExpirationRules): Day {
  switch (rules.rounding_type) {
    case undefined:
    case null:
      return d;
    case 'END_OF_MONTH':
      return endOfMonth(d.year, d.month);
    case 'END_OF_QUARTER':
      return endOfMonth(d.year, Math.ceil(d.month / 3) * 3);
    case 'END_OF_HALF_YEAR':
      return endOfMonth(d.year, d.month <= 6 ? 6 : 12);
    case 'END_OF_YEAR':
      return endOfMonth(d.year, 12);
    case 'PARTICULAR_MONTH': {
      // The end of the chosen month at or after the computed day: this year's if not passed yet, else next year's.
      const month = particularMonth(rules.rounding_value);
      return month >= d.month ? endOfMonth(d.year, month) : endOfMonth(d.year + 1, month);
    }
  }
}

/**
 * The last usable day of points earned on `earnedOn` under `rules`, or null when no rules apply (the
 * points never expire).
 *
 * - MONTH, N: usable through the same day-of-month N months later, clamped to a shorter month's last
 *   day; N = 0 means only that day. A rounding then pushes the day to the end of its month, quarter,
 *   half-year, year, or the next end of a particular month.
 * - FIXED_DAY_OF_YEAR: usable through the next `fixed_month`/`fixed_day` on or after the earning day
 *   (points earned on that very day last until its end). 29 February falls back to the 28th in years
 *   without it.
 */
export function pointsExpiryDate(rules: ExpirationRules | null | undefined, earnedOn: string): string | null {
  if (!rules) return null;
  const earned = parseDay(earnedOn);
  if (rules.period_type === 'MONTH') {
    const months = rules.period_value ?? 0;
    return formatDay(rounded(addMonths(earned, months), rules));
  }
  const month = rules.fixed_month ?? 12;
  const day = rules.fixed_day ?? 31;
  const inYear = (year: number): Day => ({ year, month, day: Math.min(day, daysInMonth(year, month)) });
  const thisYear = inYear(earned.year);
  const due = formatDay(thisYear) >= earnedOn ? thisYear : inYear(earned.year + 1);
  return formatDay(due);
}

const ROUNDINGS = ['END_OF_MONTH', 'END_OF_QUARTER', 'END_OF_HALF_YEAR', 'END_OF_YEAR', 'PARTICULAR_MONTH'] as const;

function integer(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) ? value : undefined;
}

/** Expiry rules as stored JSON (a campaign template, an earning rule), or null when absent or not rules. */
export function readExpirationRules(value: unknown): ExpirationRules | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  if (v.period_type !== 'MONTH' && v.period_type !== 'FIXED_DAY_OF_YEAR') return null;
  const rounding = ROUNDINGS.find((r) => r === v.rounding_type);
  return {
    period_type: v.period_type,
    period_value: integer(v.period_value),
    rounding_type: rounding,
    rounding_value: integer(v.rounding_value),
    fixed_month: integer(v.fixed_month),
    fixed_day: integer(v.fixed_day),
  };
}
