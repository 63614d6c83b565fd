import type { Insertable } from 'kysely';
import type { CreateVoucherInput, ImportVoucherInput } from '../../api/vouchers.ts';
import { normalizeCodeConfig } from '../../domain/codes/code-config.ts';
import { discountProblem, giftProblem, loyaltyCardProblem, normalizeDiscount } from '../../domain/discounts/discount.ts';
import { businessError, errors } from '../../domain/errors.ts';
import { checkFormula } from '../../domain/formulas/check.ts';
import type { VouchersTable, VoucherType } from '../../store/schema.ts';
import { toJson } from '../../store/json.ts';
import type { Deps } from '../context.ts';
import { checkValidity, type VoucherTemplate } from '../campaigns/campaign-input.ts';
import { voucherRow } from '../campaigns/voucher-generation.ts';

// Turns a voucher create body (or one import item) into the stored definition: the type, the discount,
// gift credits or loyalty points, code rules and validity, checked with the same domain rules as campaign
// templates. A voucher added to a campaign starts from the campaign's template; members the body sends
// replace the template's. Everything is checked before anything is written.

type DefinitionInput = Pick<
  CreateVoucherInput,
  | 'type'
  | 'discount'
  | 'gift'
  | 'loyalty_card'
  | 'redemption'
  | 'code_config'
  | 'start_date'
  | 'expiration_date'
  | 'validity_timeframe'
  | 'validity_day_of_week'
  | 'validity_hours'
>;

function inferType(input: DefinitionInput, path: string): VoucherType {
  if (input.type) return input.type;
  if (input.discount) return 'DISCOUNT_VOUCHER';
  if (input.gift) return 'GIFT_VOUCHER';
  if (input.loyalty_card) return 'LOYALTY_CARD';
  throw errors.invalidPayload(`${path === '' ? 'Payload' : `Property ${path}`} should have required property 'type' (or one of 'discount', 'gift', 'loyalty_card')`);
}

/**
 * The definition of a new voucher. `campaignTemplate` is the template of the campaign the voucher joins,
 * or null for a standalone voucher; `path` prefixes error details (`[3]` for the fourth import item).
 */
export function voucherDefinition(
  input: DefinitionInput & { code_config?: CreateVoucherInput['code_config'] },
  campaignTemplate: VoucherTemplate | null,
  projectCharset: string | null,
  path = '',
): VoucherTemplate {
  const at = (member: string) => `${path}.${member}`;
  const type = campaignTemplate ? (input.type ?? campaignTemplate.type) : inferType(input, path);
  if (campaignTemplate && type !== campaignTemplate.type) {
    throw errors.invalidPayload(`Property ${at('type')} is ${type}, but the campaign holds ${campaignTemplate.type} vouchers`);
  }
  if (type !== 'DISCOUNT_VOUCHER' && input.discount) throw errors.invalidPayload(`Property ${at('discount')} does not apply to ${type} vouchers`);
  if (type !== 'GIFT_VOUCHER' && input.gift) throw errors.invalidPayload(`Property ${at('gift')} does not apply to ${type} vouchers`);
  if (type !== 'LOYALTY_CARD' && input.loyalty_card) throw errors.invalidPayload(`Property ${at('loyalty_card')} does not apply to ${type} vouchers`);

  let codeConfig = campaignTemplate?.code_config;
  if (input.code_config !== undefined || !codeConfig) {
    const normalized = normalizeCodeConfig(input.code_config, projectCharset);
    if (!normalized.ok) throw businessError('invalid_code_config', 'Invalid code config', { details: normalized.error });
    codeConfig = normalized.config;
  }

  const base: VoucherTemplate = campaignTemplate ?? { type, redemption: { quantity: null }, code_config: codeConfig, is_referral_code: false };
  const definition: VoucherTemplate = {
    ...base,
    type,
    code_config: codeConfig,
    redemption: { quantity: input.redemption?.quantity !== undefined ? input.redemption.quantity : base.redemption.quantity },
    ...(input.start_date !== undefined ? { start_date: input.start_date } : {}),
    ...(input.expiration_date !== undefined ? { expiration_date: input.expiration_date } : {}),
    ...(input.validity_timeframe !== undefined ? { validity_timeframe: input.validity_timeframe } : {}),
    ...(input.validity_day_of_week !== undefined ? { validity_day_of_week: input.validity_day_of_week } : {}),
    ...(input.validity_hours !== undefined ? { validity_hours: input.validity_hours } : {}),
  };
  checkValidity(
    {
      start_date: definition.start_date ?? null,
      expiration_date: definition.expiration_date ?? null,
      validity_timeframe: definition.validity_timeframe ?? null,
      validity_day_of_week: definition.validity_day_of_week ?? null,
      validity_hours: definition.validity_hours ?? null,
    },
    path,
  );

  switch (type) {
    case 'DISCOUNT_VOUCHER': {
      if (input.discount) {
        const problem = discountProblem(input.discount, checkFormula, at('discount').slice(1));
        if (problem) throw errors.invalidPayload(problem);
        definition.discount = normalizeDiscount(input.discount);
      }
      if (!definition.discount) throw errors.invalidPayload(`Property ${at('discount')} is required for DISCOUNT_VOUCHER vouchers`);
      break;
    }
    case 'GIFT_VOUCHER': {
      if (input.gift) {
        const problem = giftProblem(input.gift, at('gift').slice(1));
        if (problem) throw errors.invalidPayload(problem);
        definition.gift = { amount: input.gift.amount, effect: input.gift.effect ?? definition.gift?.effect ?? null };
      }
      if (!definition.gift) throw errors.invalidPayload(`Property ${at('gift')} is required for GIFT_VOUCHER vouchers`);
      break;
    }
    case 'LOYALTY_CARD': {
      const points = input.loyalty_card?.points ?? definition.loyalty_card?.points ?? 0;
      const rules = input.loyalty_card?.expiration_rules ?? definition.loyalty_card?.expiration_rules;
      const card = { points, ...(rules ? { expiration_rules: rules } : {}) };
      const problem = loyaltyCardProblem(card as Parameters<typeof loyaltyCardProblem>[0], at('loyalty_card').slice(1));
      if (problem) throw errors.invalidPayload(problem);
      definition.loyalty_card = card;
      break;
    }
  }
  return definition;
}

/** Per-voucher values that are not part of the definition. */
export interface VoucherFields {
  categoryId: string | null;
  active: boolean;
  metadata: Record<string, unknown>;
  additionalInfo: string | null;
}

export function fieldsOf(input: Pick<ImportVoucherInput, 'active' | 'metadata' | 'additional_info'>, categoryId: string | null): VoucherFields {
  return { categoryId, active: input.active ?? true, metadata: input.metadata ?? {}, additionalInfo: input.additional_info ?? null };
}

/** The row of one new voucher; `campaignId` null makes a standalone voucher. */
export function newVoucherRow(
  deps: Pick<Deps, 'ids'>,
  projectId: string,
  campaignId: string | null,
  definition: VoucherTemplate,
  fields: VoucherFields,
  code: string,
  codeKey: string,
  now: string,
): Insertable<VouchersTable> {
  // voucherRow makes campaign vouchers from a template; a standalone voucher is the same row without a
  // campaign, so its starting balances follow exactly the same rules.
  const row = voucherRow(
    deps,
    { projectId, campaignId: campaignId ?? '', campaignCategoryId: fields.categoryId, template: definition, overrides: {} },
    code,
    codeKey,
    now,
  );
  return {
    // Every counter is given explicitly: an import inserts rows of different types in one statement, and
    // a member missing from some rows would be written as NULL rather than as the column default.
    gift_subtracted_amount: 0,
    gift_balance: 0,
    loyalty_points: 0,
    loyalty_balance: 0,
    loyalty_expired_points: 0,
    loyalty_subtracted_points: 0,
    loyalty_pending_points: 0,
    redeemed_quantity: 0,
    redeemed_amount: 0,
    redeemed_points: 0,
    publish_count: 0,
    ...row,
    campaign_id: campaignId,
    category_id: fields.categoryId,
    active: fields.active,
    metadata: toJson(fields.metadata),
    additional_info: fields.additionalInfo,
  };
}
