import { parseIsoDuration, type IsoDuration } from '../time/iso-duration.ts';
import { daysInMonth } from './points-expiry.ts';

// Loyalty tier membership (loyalty reference 1.6, 6.2): which tier a card qualifies for, from when and
// until when, under the program's `loyalty_tiers_expiration`. Pure and table-driven: days are calendar
// dates (YYYY-MM-DD) in the project's time zone, passed in together with the measured points.
//
// Qualification
// - BALANCE: the metric is the card's balance.
// - POINTS_IN_PERIOD: the metric is the points collected in the current calendar qualification period
//   (MONTH; QUARTER Jan–Mar, Apr–Jun, …; HALF_YEAR Jan–Jun, Jul–Dec; YEAR).
// - The qualifying tier is the one with the highest `from` not above the metric: a metric in a gap
//   between ranges keeps the lower tier, one above the top range keeps the top tier (the vendor leaves
//   both open), one below every `from` qualifies for none.
//
// Start
// - IMMEDIATE: the tier starts the day it is reached.
// - NEXT_PERIOD: it starts on the first day of the next qualification period; until then it is pending
//   and the card keeps what it had.
//
// Expiration (the last day a tier is held; null = held while qualifying)
// - BALANCE_DROP: no date; the tier follows the metric at once, down as well as up.
// - CUSTOM: held while the metric qualifies; when the metric falls below the tier, the tier is kept for
//   `extend` more (then rounded), and is lost after that day unless the metric qualifies again first.
// - END_OF_PERIOD / END_OF_NEXT_PERIOD: the end of the qualification period the tier started in (or the
//   one after it), plus `extend`, then rounded. Qualifying again for the same tier later moves the date
//   (the tier is prolonged); falling short never shortens it.
// - `rounding` moves the date to the START (first day) or END (last day) of its MONTH, QUARTER,
//   HALF_YEAR or YEAR, or for CUSTOM to month `value` (0 = January) on or after it.
// Upgrades apply at once (or from the next period); downgrades happen only when the tier held expires.

export type QualificationType = 'BALANCE' | 'POINTS_IN_PERIOD';
export type QualificationPeriod = 'MONTH' | 'QUARTER' | 'HALF_YEAR' | 'YEAR';
export type StartType = 'IMMEDIATE' | 'NEXT_PERIOD';
export type ExpirationType = 'BALANCE_DROP' | 'CUSTOM' | 'END_OF_PERIOD' | 'END_OF_NEXT_PERIOD';
export type RoundingType = 'MONTH' | 'QUARTER' | 'HALF_YEAR' | 'YEAR' | 'CUSTOM';

export const QUALIFICATION_TYPES: readonly QualificationType[] = ['BALANCE', 'POINTS_IN_PERIOD'];
export const QUALIFICATION_PERIODS: readonly QualificationPeriod[] = ['MONTH', 'QUARTER', 'HALF_YEAR', 'YEAR'];
export const START_TYPES: readonly StartType[] = ['IMMEDIATE', 'NEXT_PERIOD'];
export const EXPIRATION_TYPES: readonly ExpirationType[] = ['BALANCE_DROP', 'CUSTOM', 'END_OF_PERIOD', 'END_OF_NEXT_PERIOD'];
export const ROUNDING_TYPES: readonly RoundingType[] = ['MONTH', 'QUARTER', 'HALF_YEAR', 'YEAR', 'CUSTOM'];

export interface TierRounding {
  type: RoundingType;
  strategy: 'START' | 'END';
  /** Month index for CUSTOM (0 = January … 11 = December). */
  value: number | null;
}

export interface TiersPolicy {
  qualification: QualificationType;
  period: QualificationPeriod;
  start: StartType;
  expiration: ExpirationType;
  extend: IsoDuration | null;
  rounding: TierRounding | null;
}

/** A program without `loyalty_tiers_expiration`: tiers follow the balance, both ways, at once. */
export const DEFAULT_POLICY: TiersPolicy = {
  qualification: 'BALANCE',
  period: 'MONTH',
  start: 'IMMEDIATE',
  expiration: 'BALANCE_DROP',
  extend: null,
  rounding: null,
};

function record(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[]): T | undefined {
  return allowed.find((a) => a === value);
}

/**
 * The problem with a `loyalty_tiers_expiration` object, or null when it is usable (for the campaign
 * create/update checks, which store the object as given).
 */
export function tiersExpirationProblem(value: unknown): string | null {
  const v = record(value);
  if (!v) return 'loyalty_tiers_expiration must be an object';
  if (!oneOf(v.qualification_type, QUALIFICATION_TYPES)) return `loyalty_tiers_expiration.qualification_type must be one of ${QUALIFICATION_TYPES.join(', ')}`;
  if (v.qualification_type === 'POINTS_IN_PERIOD' && !oneOf(v.qualification_period, QUALIFICATION_PERIODS)) {
    return `loyalty_tiers_expiration.qualification_period must be one of ${QUALIFICATION_PERIODS.join(', ')} for POINTS_IN_PERIOD`;
  }
  const start = record(v.start_date);
  if (!start || !oneOf(start.type, START_TYPES)) return `loyalty_tiers_expiration.start_date.type must be one of ${START_TYPES.join(', ')}`;
  if (start.type === 'NEXT_PERIOD' && v.qualification_type !== 'POINTS_IN_PERIOD') return 'loyalty_tiers_expiration.start_date.type NEXT_PERIOD needs qualification_type POINTS_IN_PERIOD';
  const expiration = record(v.expiration_date);
  if (!expiration || !oneOf(expiration.type, EXPIRATION_TYPES)) return `loyalty_tiers_expiration.expiration_date.type must be one of ${EXPIRATION_TYPES.join(', ')}`;
  if ((expiration.type === 'END_OF_PERIOD' || expiration.type === 'END_OF_NEXT_PERIOD') && v.qualification_type !== 'POINTS_IN_PERIOD') {
    return `loyalty_tiers_expiration.expiration_date.type ${String(expiration.type)} needs qualification_type POINTS_IN_PERIOD`;
  }
  if (expiration.extend !== undefined && expiration.extend !== null && (typeof expiration.extend !== 'string' || !parseIsoDuration(expiration.extend))) {
    return 'loyalty_tiers_expiration.expiration_date.extend must be an ISO 8601 duration';
  }
  if (expiration.rounding !== undefined && expiration.rounding !== null) {
    const rounding = record(expiration.rounding);
    if (!rounding || !oneOf(rounding.type, ROUNDING_TYPES)) return `loyalty_tiers_expiration.expiration_date.rounding.type must be one of ${ROUNDING_TYPES.join(', ')}`;
    if (rounding.strategy !== undefined && rounding.strategy !== null && !oneOf(rounding.strategy, ['START', 'END'] as const)) {
      return 'loyalty_tiers_expiration.expiration_date.rounding.strategy must be START or END';
    }
    if (rounding.type === 'CUSTOM' && !(typeof rounding.value === 'number' && Number.isInteger(rounding.value) && rounding.value >= 0 && rounding.value <= 11)) {
      return 'loyalty_tiers_expiration.expiration_date.rounding.value must be a month index 0-11 for CUSTOM rounding';
    }
  }
  return null;
}

/** The policy a program's stored `loyalty_tiers_expiration` describes; anything unusable reads as the default. */
export function readTiersPolicy(value: unknown): TiersPolicy {
  if (value === null || value === undefined || tiersExpirationProblem(value) !== null) return DEFAULT_POLICY;
  const v = value as Record<string, unknown>;
  const expiration = record(v.expiration_date) as Record<string, unknown>;
  const rounding = record(expiration.rounding);
  return {
    qualification: v.qualification_type as QualificationType,
    period: oneOf(v.qualification_period, QUALIFICATION_PERIODS) ?? 'MONTH',
    start: (record(v.start_date) as Record<string, unknown>).type as StartType,
    expiration: expiration.type as ExpirationType,
    extend: typeof expiration.extend === 'string' ? parseIsoDuration(expiration.extend) : null,
    rounding: rounding
      ? {
          type: rounding.type as RoundingType,
          // The vendor echoes END when none is sent (loyalty reference 1.6).
          strategy: rounding.strategy === 'START' ? 'START' : 'END',
          value: typeof rounding.value === 'number' ? rounding.value : null,
        }
      : null,
  };
}

// ---- calendar days ----

interface Day {
  year: number;
  month: number;
  day: number;
}

function parse(text: string): Day {
  const [year, month, day] = text.split('-').map(Number) as [number, number, number];
  return { year, month, day };
}

function format(d: Day): string {
  return `${String(d.year).padStart(4, '0')}-${String(d.month).padStart(2, '0')}-${String(d.day).padStart(2, '0')}`;
}

function monthIndex(d: Day): number {
  return d.year * 12 + d.month - 1;
}

function fromMonthIndex(index: number, day: 'first' | 'last'): Day {
  const year = Math.floor(index / 12);
  const month = (index % 12) + 1;
  return { year, month, day: day === 'first' ? 1 : daysInMonth(year, month) };
}

const PERIOD_MONTHS: Record<QualificationPeriod, number> = { MONTH: 1, QUARTER: 3, HALF_YEAR: 6, YEAR: 12 };

/** First and last day of the calendar period containing `day`. */
export function periodOf(day: string, period: QualificationPeriod): { start: string; end: string } {
  const d = parse(day);
  const size = PERIOD_MONTHS[period];
  const first = d.year * 12 + Math.floor((d.month - 1) / size) * size;
  return { start: format(fromMonthIndex(first, 'first')), end: format(fromMonthIndex(first + size - 1, 'last')) };
}

/** The first day of the period after the one containing `day`. */
export function nextPeriodStart(day: string, period: QualificationPeriod): string {
  const { end } = periodOf(day, period);
  return addDays(end, 1);
}

export function addDays(day: string, days: number): string {
  const d = parse(day);
  const ms = Date.UTC(d.year, d.month - 1, d.day) + days * 86_400_000;
  return new Date(ms).toISOString().slice(0, 10);
}

/** A day plus a duration in calendar terms: years and months keep the day of month (clamped), then weeks and days. */
export function addDuration(day: string, duration: IsoDuration | null): string {
  if (!duration) return day;
  const d = parse(day);
  const index = monthIndex(d) + duration.years * 12 + duration.months;
  const target = fromMonthIndex(index, 'last');
  const clamped = format({ ...target, day: Math.min(d.day, target.day) });
  // Hours and smaller parts do not move a calendar day unless they add up to whole days.
  const extraDays = duration.weeks * 7 + duration.days + Math.floor((duration.hours * 3600 + duration.minutes * 60 + duration.seconds) / 86_400);
  return addDays(clamped, extraDays);
}

const ROUNDING_MONTHS: Record<Exclude<RoundingType, 'CUSTOM'>, number> = { MONTH: 1, QUARTER: 3, HALF_YEAR: 6, YEAR: 12 };

export function roundDay(day: string, rounding: TierRounding | null): string {
  if (!rounding) return day;
  const d = parse(day);
  let firstMonth: number;
  let lastMonth: number;
  if (rounding.type === 'CUSTOM') {
    const wanted = rounding.value ?? 11;
    const year = d.month - 1 <= wanted ? d.year : d.year + 1;
    firstMonth = lastMonth = year * 12 + wanted;
  } else {
    const size = ROUNDING_MONTHS[rounding.type];
    firstMonth = d.year * 12 + Math.floor((d.month - 1) / size) * size;
    lastMonth = firstMonth + size - 1;
  }
  return format(rounding.strategy === 'START' ? fromMonthIndex(firstMonth, 'first') : fromMonthIndex(lastMonth, 'last'));
}

// ---- membership ----

export interface TierRange {
  id: string;
  from: number;
  to: number | null;
}

export interface HeldTier {
  tierId: string;
  startDate: string;
  /** Last day held; null while held for as long as the metric qualifies. */
  expirationDate: string | null;
}

export interface Membership {
  current: HeldTier | null;
  /** A tier reached that starts on a later day (NEXT_PERIOD programs). */
  pending: HeldTier | null;
}

export const NO_MEMBERSHIP: Membership = { current: null, pending: null };

export type TierChange = 'joined' | 'upgraded' | 'downgraded' | 'left' | 'prolonged';

export interface TierDecision {
  membership: Membership;
  /** What happened to the tier the card holds; null when nothing a member would notice changed. */
  change: TierChange | null;
  from: string | null;
  to: string | null;
}

/** Tiers ordered from the lowest `from` (ties by id, so the order is total). */
export function rankTiers(tiers: readonly TierRange[]): TierRange[] {
  return [...tiers].sort((a, b) => a.from - b.from || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

export function qualifyingTier(tiers: readonly TierRange[], metric: number): TierRange | null {
  let found: TierRange | null = null;
  for (const tier of rankTiers(tiers)) if (tier.from <= metric) found = tier;
  return found;
}

/** The last day a tier reached (or re-reached) on `start` is held for, under a period policy. */
export function periodExpiration(policy: TiersPolicy, start: string): string {
  const { end } = periodOf(start, policy.period);
  const last = policy.expiration === 'END_OF_NEXT_PERIOD' ? periodOf(addDays(end, 1), policy.period).end : end;
  return roundDay(addDuration(last, policy.extend), policy.rounding);
}

function graceExpiration(policy: TiersPolicy, today: string): string {
  return roundDay(addDuration(today, policy.extend), policy.rounding);
}

export interface TierInput {
  tiers: readonly TierRange[];
  policy: TiersPolicy;
  stored: Membership;
  /** Balance (BALANCE) or points collected in the current period (POINTS_IN_PERIOD). */
  metric: number;
  today: string;
}

function sameHeld(a: HeldTier | null, b: HeldTier | null): boolean {
  return a?.tierId === b?.tierId && a?.startDate === b?.startDate && a?.expirationDate === b?.expirationDate;
}

/** True when the decision changes what is stored (so the caller writes only then). */
export function membershipChanged(before: Membership, after: Membership): boolean {
  return !sameHeld(before.current, after.current) || !sameHeld(before.pending, after.pending);
}

/**
 * The membership after a recalculation on `today`, and the change a member sees. `stored` is what the
 * card held before; tiers that no longer exist are treated as not held.
 */
export function decideTier(input: TierInput): TierDecision {
  const { policy, today, metric } = input;
  const ranked = rankTiers(input.tiers);
  const rank = (id: string | null | undefined) => (id ? ranked.findIndex((t) => t.id === id) : -1);
  const before = input.stored.current && rank(input.stored.current.tierId) >= 0 ? input.stored.current : null;

  // A pending tier whose day has come replaces the held one.
  let current = before;
  let pending = input.stored.pending && rank(input.stored.pending.tierId) >= 0 ? input.stored.pending : null;
  if (pending && pending.startDate <= today) {
    current = pending;
    pending = null;
  }
  if (current && current.expirationDate !== null && current.expirationDate < today) current = null;

  const qualifying = qualifyingTier(ranked, metric);
  const q = qualifying ? rank(qualifying.id) : -1;
  const held = current ? rank(current.tierId) : -1;

  if (policy.expiration === 'BALANCE_DROP') {
    current = qualifying ? (current?.tierId === qualifying.id ? current : { tierId: qualifying.id, startDate: today, expirationDate: null }) : null;
    pending = null;
  } else if (policy.expiration === 'CUSTOM') {
    if (qualifying && q > held) {
      current = { tierId: qualifying.id, startDate: today, expirationDate: null };
    } else if (current && q === held) {
      // Back in range (or still in it): the grace period, if running, stops.
      if (current.expirationDate !== null) current = { ...current, expirationDate: null };
    } else if (current && current.expirationDate === null) {
      // Fell below the tier: it is kept for the grace period from today.
      current = { ...current, expirationDate: graceExpiration(policy, today) };
    }
    pending = null;
  } else {
    const startOfReach = policy.start === 'IMMEDIATE' ? today : nextPeriodStart(today, policy.period);
    if (qualifying && q > held) {
      const reached: HeldTier = { tierId: qualifying.id, startDate: startOfReach, expirationDate: periodExpiration(policy, startOfReach) };
      if (policy.start === 'IMMEDIATE') current = reached;
      else if (!pending || rank(pending.tierId) < q) pending = reached;
    } else if (qualifying && current && q === held) {
      const until = periodExpiration(policy, startOfReach);
      if (current.expirationDate !== null && until > current.expirationDate) current = { ...current, expirationDate: until };
    }
  }

  const after = current;
  const from = before?.tierId ?? null;
  const to = after?.tierId ?? null;
  let change: TierChange | null = null;
  if (from === null && to !== null) change = 'joined';
  else if (from !== null && to === null) change = 'left';
  else if (from !== null && to !== null) {
    const r = rank(to) - rank(from);
    if (r > 0) change = 'upgraded';
    else if (r < 0) change = 'downgraded';
    else if (before && after) {
      const longer =
        (before.expirationDate !== null && after.expirationDate === null) ||
        (before.expirationDate !== null && after.expirationDate !== null && after.expirationDate > before.expirationDate) ||
        // Lost on expiry and reached again the same day: held anew.
        after.startDate !== before.startDate;
      if (longer) change = 'prolonged';
    }
  }
  return { membership: { current: after, pending }, change, from, to };
}

/** The tier a membership gives on `today` without recalculating: a due pending tier counts, an expired one does not. */
export function heldOn(membership: Membership, today: string): HeldTier | null {
  let current = membership.current;
  if (membership.pending && membership.pending.startDate <= today) current = membership.pending;
  if (current && current.expirationDate !== null && current.expirationDate < today) return null;
  return current;
}
