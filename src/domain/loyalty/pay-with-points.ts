import { shiftDecimal } from '../formulas/rounding.ts';

// Pay with points (COIN rewards, loyalty reference 5.5, promotions reference 3.7): points become an
// order-level discount. `exchange_ratio` is the cash value, in major currency units, of `points_ratio`
// points, so cash = points × exchange_ratio / points_ratio (×100 for minor units). Pure.
//
// - Points given: they must not exceed the balance; the discount is their cash value capped by what is
//   left to pay, and no more points are taken than that capped discount needs.
// - Points not given (DECISIONS 14): as many as cover what is left to pay, counted in whole blocks of
//   `points_ratio` (the vendor's example charges 2300 points, 23 blocks of 100, for a 450.00 order at
//   100 points = 20.00), capped by the balance in whole blocks.

export interface CoinParameters {
  exchange_ratio: number;
  points_ratio: number;
}

export type PayWithPoints =
  | { ok: true; points: number; discount: number }
  | { ok: false; reason: 'nothing_to_pay' | 'points_exceeded' | 'too_few_points' };

/** Minor units per `points_ratio` points; may be fractional (exchange_ratio 0.005 → 0.5). */
function minorPerBlock(coin: CoinParameters): number {
  return shiftDecimal(coin.exchange_ratio, 2);
}

/** The cash value of `points` in whole minor units, halves rounded up (DECISIONS 12). */
export function cashForPoints(points: number, coin: CoinParameters): number {
  const exact = (points * minorPerBlock(coin)) / coin.points_ratio;
  // Guard against 2.9999999 style products of decimal ratios before rounding.
  return Math.floor(Number(exact.toPrecision(15)) + 0.5);
}

/** The fewest whole blocks of points whose cash value covers `amount` minor units. */
export function pointsToCover(amount: number, coin: CoinParameters): number {
  if (amount <= 0) return 0;
  const blocks = Math.ceil(Number((amount / minorPerBlock(coin)).toPrecision(15)));
  return blocks * coin.points_ratio;
}

export function payWithPoints(input: { remaining: number; balance: number; requested: number | null; coin: CoinParameters }): PayWithPoints {
  const { remaining, balance, requested, coin } = input;
  if (remaining <= 0) return { ok: false, reason: 'nothing_to_pay' };
  const needed = pointsToCover(remaining, coin);
  let points: number;
  if (requested !== null) {
    if (requested > balance) return { ok: false, reason: 'points_exceeded' };
    points = Math.min(requested, needed);
  } else {
    points = needed <= balance ? needed : Math.floor(balance / coin.points_ratio) * coin.points_ratio;
    if (points === 0) return { ok: false, reason: 'points_exceeded' };
  }
  const discount = Math.min(cashForPoints(points, coin), remaining);
  if (points <= 0 || discount <= 0) return { ok: false, reason: 'too_few_points' };
  return { ok: true, points, discount };
}
