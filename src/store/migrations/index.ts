import type { Migration } from 'kysely';
import * as foundation from './2026-11-21-0001-foundation.ts';
import * as campaignsVouchers from './2026-11-21-0002-campaigns-vouchers.ts';

// Every migration, in the order it runs. Names are date-prefixed and never change once released.
export const migrations: Record<string, Migration> = {
  '2026-11-21-0001-foundation': foundation,
  '2026-11-21-0002-campaigns-vouchers': campaignsVouchers,
};
