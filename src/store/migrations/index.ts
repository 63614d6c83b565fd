import type { Migration } from 'kysely';
import * as foundation from './2026-11-21-0001-foundation.ts';
import * as campaignsVouchers from './2026-11-21-0002-campaigns-vouchers.ts';
import * as rulesSegmentsCollections from './2026-11-21-0003-rules-segments-collections.ts';
import * as orders from './2026-11-21-0004-orders.ts';
import * as loyaltyMembers from './2026-11-21-0005-loyalty-members.ts';
import * as vouchersReferrals from './2026-11-21-0006-vouchers-referrals.ts';
import * as earningRulesTiersRewards from './2026-11-21-0007-earning-rules-tiers-rewards.ts';
import * as webhooksEventsSchemas from './2026-11-21-0008-webhooks-events-schemas.ts';
import * as exportsTables from './2026-11-21-0009-exports.ts';
import * as promotionTiersStacks from './2026-11-21-0010-promotion-tiers-stacks.ts';
import * as redemptionEngine from './2026-11-21-0020-redemption-engine.ts';
import * as referralTiers from './2026-11-21-0021-referral-tiers.ts';
import * as redemptionListIndexes from './2026-11-21-0022-redemption-list-indexes.ts';
import * as redemptionSnapshots from './2026-11-22-0023-redemption-snapshots.ts';
import * as voucherCategoryIndex from './2026-11-22-0024-voucher-category-index.ts';
import * as redemptionCounts from './2026-11-22-0025-redemption-counts.ts';
import * as quarantineUnreadableJson from './2026-11-26-0026-quarantine-unreadable-json.ts';
import * as idempotencyInTransaction from './2026-11-26-0028-idempotency-in-transaction.ts';
import * as ruleAssignmentsByObject from './2026-11-26-0029-rule-assignments-by-object.ts';
import * as promotionTierCounts from './2026-11-26-0030-promotion-tier-counts.ts';
import * as csvImports from './2026-11-26-0031-csv-imports.ts';
import * as scopedExportsCustomerRedeemables from './2026-11-26-0032-scoped-exports-customer-redeemables.ts';
import * as consents from './2026-11-26-0033-consents.ts';
import * as campaignTemplates from './2026-11-26-0034-campaign-templates.ts';
import * as projectUsers from './2026-11-26-0035-project-users.ts';
import * as consoleSessions from './2026-11-26-0036-console-sessions.ts';
import * as definitionsVersion from './2026-11-26-0037-definitions-version.ts';
import * as listCounts from './2026-11-27-0038-list-counts.ts';
import * as redemptionIndexDiet from './2026-11-27-0039-redemption-index-diet.ts';
import * as cockpitBranding from './2026-11-27-0040-cockpit-branding.ts';
import * as countedRedemptionIndexes from './2026-11-27-0041-counted-redemption-indexes.ts';
import * as accounts from './2026-11-27-0042-accounts.ts';
import * as projectLocale from './2026-12-07-0043-project-locale.ts';
import * as customerSearch from './2026-12-07-0044-customer-search.ts';

// Every migration, in the order it runs (Kysely runs them sorted by name). Names are date-prefixed and
// never change once released.
export const migrations: Record<string, Migration> = {
  '2026-11-21-0001-foundation': foundation,
  '2026-11-21-0002-campaigns-vouchers': campaignsVouchers,
  '2026-11-21-0003-rules-segments-collections': rulesSegmentsCollections,
  '2026-11-21-0004-orders': orders,
  '2026-11-21-0005-loyalty-members': loyaltyMembers,
  '2026-11-21-0006-vouchers-referrals': vouchersReferrals,
  '2026-11-21-0007-earning-rules-tiers-rewards': earningRulesTiersRewards,
  '2026-11-21-0008-webhooks-events-schemas': webhooksEventsSchemas,
  '2026-11-21-0009-exports': exportsTables,
  '2026-11-21-0010-promotion-tiers-stacks': promotionTiersStacks,
  '2026-11-21-0020-redemption-engine': redemptionEngine,
  '2026-11-21-0021-referral-tiers': referralTiers,
  '2026-11-21-0022-redemption-list-indexes': redemptionListIndexes,
  '2026-11-22-0023-redemption-snapshots': redemptionSnapshots,
  '2026-11-22-0024-voucher-category-index': voucherCategoryIndex,
  '2026-11-22-0025-redemption-counts': redemptionCounts,
  '2026-11-26-0026-quarantine-unreadable-json': quarantineUnreadableJson,
  '2026-11-26-0028-idempotency-in-transaction': idempotencyInTransaction,
  '2026-11-26-0029-rule-assignments-by-object': ruleAssignmentsByObject,
  '2026-11-26-0030-promotion-tier-counts': promotionTierCounts,
  '2026-11-26-0031-csv-imports': csvImports,
  '2026-11-26-0032-scoped-exports-customer-redeemables': scopedExportsCustomerRedeemables,
  '2026-11-26-0033-consents': consents,
  '2026-11-26-0034-campaign-templates': campaignTemplates,
  '2026-11-26-0035-project-users': projectUsers,
  '2026-11-26-0036-console-sessions': consoleSessions,
  '2026-11-26-0037-definitions-version': definitionsVersion,
  '2026-11-27-0038-list-counts': listCounts,
  '2026-11-27-0039-redemption-index-diet': redemptionIndexDiet,
  '2026-11-27-0040-cockpit-branding': cockpitBranding,
  '2026-11-27-0041-counted-redemption-indexes': countedRedemptionIndexes,
  '2026-11-27-0042-accounts': accounts,
  '2026-12-07-0043-project-locale': projectLocale,
  '2026-12-07-0044-customer-search': customerSearch,
};
