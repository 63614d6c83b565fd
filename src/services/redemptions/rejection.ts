import type { Evaluation } from '../../domain/redemptions/engine.ts';
import type { RedeemableFailure } from '../../domain/redemptions/failures.ts';
import type { Facts } from './facts.ts';

/** Why a redemption was refused after evaluation; carries what the failure records are made of. */
export class RedemptionRejected extends Error {
  constructor(
    readonly facts: Facts,
    readonly evaluation: Evaluation,
    /** A consumption refused by a conditional statement (a concurrent request took the last use or credits). */
    readonly consumption: { index: number; failure: RedeemableFailure } | null,
  ) {
    super('redemption rejected');
  }
}

