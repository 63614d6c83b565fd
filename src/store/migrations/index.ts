import type { Migration } from 'kysely';
import * as foundation from './2026-11-21-0001-foundation.ts';
import * as campaignsVouchers from './2026-11-21-0002-campaigns-vouchers.ts';
import * as rulesSegmentsCollections from './2026-11-21-0003-rules-segments-collections.ts';
import * as orders from './2026-11-21-0004-orders.ts';
import * as vouchersReferrals from './2026-11-21-0006-vouchers-referrals.ts';

// Every migration, in the order it runs. Names are date-prefixed and never change once released.
export const migrations: Record<string, Migration> = {
  '2026-11-21-0001-foundation': foundation,
  '2026-11-21-0002-campaigns-vouchers': campaignsVouchers,
  '2026-11-21-0003-rules-segments-collections': rulesSegmentsCollections,
  '2026-11-21-0004-orders': orders,
  '2026-11-21-0006-vouchers-referrals': vouchersReferrals,
};
