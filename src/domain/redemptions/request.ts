import { businessError, type DomainError } from '../errors.ts';

// Request-level rejections of a validation or redemption (promotions reference 6.2): they refuse the
// whole call with a 400 before anything is looked up, and nothing is stored for them. Pure.

export interface SentRedeemable {
  object: 'voucher' | 'promotion_tier' | 'promotion_stack';
  id: string;
}

export function duplicatedRedeemables(details: string): DomainError {
  return businessError('duplicated_redeemables', 'Duplicated redeemables detected', { details });
}

export function invalidRedeemables(details: string): DomainError {
  return businessError('invalid_redeemables', 'Invalid redeemables', { details });
}

/**
 * Why the redeemables of a request cannot be processed at all, or null: more than the project's
 * `redeemables_limit`, the same redeemable twice, or a promotion stack together with anything else.
 */
export function redeemablesProblem(redeemables: readonly SentRedeemable[], limit: number): DomainError | null {
  if (redeemables.length > limit) {
    return invalidRedeemables(`A request may carry at most ${limit} redeemables (stacking rules redeemables_limit); got ${redeemables.length}`);
  }
  const seen = new Set<string>();
  for (const [i, r] of redeemables.entries()) {
    const key = `${r.object}\u0000${r.id}`;
    if (seen.has(key)) return duplicatedRedeemables(`Duplicated redeemables detected: ${r.object} ${r.id} (.redeemables[${i}]) in one request`);
    seen.add(key);
  }
  const stacks = redeemables.filter((r) => r.object === 'promotion_stack').length;
  if (stacks > 0 && redeemables.length > 1) {
    return invalidRedeemables(
      stacks > 1 ? 'Only one promotion stack can be used in one request' : 'Promotion Stack cannot be use with other redeemables',
    );
  }
  return null;
}
