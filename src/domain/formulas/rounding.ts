// Decimal rounding of doubles. Multiplying 2.675 by 100 gives 267.49999999999997, so rounding after a
// plain multiplication loses half-cents; shifting the decimal exponent of the shortest representation
// ("2.675e0" → "2.675e2") gives 267.5 exactly, as a person doing the sum on paper would.

/** x × 10^digits, computed on x's shortest decimal representation. */
export function shiftDecimal(x: number, digits: number): number {
  if (x === 0 || digits === 0 || !Number.isFinite(x)) return x;
  const [mantissa, exponent] = x.toExponential().split('e') as [string, string];
  return Number(`${mantissa}e${Number(exponent) + digits}`);
}

/** Rounds to `digits` decimal places (negative: tens, hundreds, …), halves away from zero like a spreadsheet ROUND. */
export function roundHalfAwayFromZero(x: number, digits = 0): number {
  if (!Number.isFinite(x)) return x;
  const shifted = shiftDecimal(Math.abs(x), digits);
  const rounded = shiftDecimal(Math.floor(shifted + 0.5), -digits);
  const signed = x < 0 ? -rounded : rounded;
  // Never answer -0: it would print as 0 but compare and serialise oddly.
  return signed === 0 ? 0 : signed;
}
