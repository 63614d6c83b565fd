// Session locks (promotions reference 6.10): how long a validation's reservation lives. Pure.

export const TTL_UNITS = ['DAYS', 'HOURS', 'MICROSECONDS', 'MILLISECONDS', 'MINUTES', 'NANOSECONDS', 'SECONDS'] as const;
export type TtlUnit = (typeof TTL_UNITS)[number];

/** A session without `ttl` lives 7 days (vendor). */
export const DEFAULT_TTL = 7;
export const DEFAULT_TTL_UNIT: TtlUnit = 'DAYS';

const MS_PER_UNIT: Record<TtlUnit, number> = {
  DAYS: 86_400_000,
  HOURS: 3_600_000,
  MINUTES: 60_000,
  SECONDS: 1000,
  MILLISECONDS: 1,
  MICROSECONDS: 0.001,
  NANOSECONDS: 0.000_001,
};

/** A session can be kept at most this long (10 years): beyond that the expiry is not a real date. */
export const MAX_TTL_MS = 10 * 365 * 86_400_000;

export interface SessionSpec {
  key: string;
  ttl: number;
  ttlUnit: TtlUnit;
}

/** When a session made at `now` expires; sub-millisecond lifetimes round up to one millisecond. */
export function sessionExpiry(now: Date, ttl: number, unit: TtlUnit): Date {
  const ms = Math.min(MAX_TTL_MS, Math.max(1, Math.ceil(ttl * MS_PER_UNIT[unit])));
  return new Date(now.getTime() + ms);
}

/** The session as validation and redemption responses echo it. */
export function sessionEcho(spec: SessionSpec): { key: string; type: 'LOCK'; ttl: number; ttl_unit: TtlUnit } {
  return { key: spec.key, type: 'LOCK', ttl: spec.ttl, ttl_unit: spec.ttlUnit };
}
