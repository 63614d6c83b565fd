import type { CreateCampaignInput, VoucherTemplateInput } from '../../api/campaigns.ts';
import { normalizeCodeConfig, type CodeConfig } from '../../domain/codes/code-config.ts';
import { discountProblem, giftProblem, loyaltyCardProblem, normalizeDiscount } from '../../domain/discounts/discount.ts';
import { businessError, errors } from '../../domain/errors.ts';
import { checkFormula } from '../../domain/formulas/check.ts';
import { parseIsoDuration } from '../../domain/time/iso-duration.ts';
import { validityProblem, type ValidityWindow } from '../../domain/validity/validity.ts';
import type { CampaignRow } from '../../store/campaigns.ts';
import { fromJson } from '../../store/json.ts';
import type { CampaignType } from '../../store/schema.ts';

// Turns a campaign create body into what is stored: the campaign type (inferred where the SDK leaves it
// out), the normalised voucher template, and every definition check done before anything is written.

/** The voucher template as stored on the campaign and copied onto each generated voucher. */
export interface VoucherTemplate {
  type: 'DISCOUNT_VOUCHER' | 'GIFT_VOUCHER' | 'LOYALTY_CARD';
  discount?: Record<string, unknown>;
  gift?: { amount: number; effect: string | null };
  loyalty_card?: { points: number; expiration_rules?: Record<string, unknown> };
  redemption: { quantity: number | null };
  code_config: CodeConfig;
  is_referral_code: boolean;
  start_date?: string | null;
  expiration_date?: string | null;
  validity_timeframe?: { interval: string; duration: string } | null;
  validity_day_of_week?: number[] | null;
  validity_hours?: { daily: { start_time: string; expiration_time: string; days_of_week: number[] }[] } | null;
}

/** The campaign's stored voucher template; null for campaign types without vouchers. */
export function templateOf(row: CampaignRow): VoucherTemplate | null {
  return fromJson<VoucherTemplate | null>(row.voucher_template, null);
}

const invalidCampaign = (details: string) => businessError('invalid_campaign', 'Invalid campaign', { details });

export function inferCampaignType(input: CreateCampaignInput, forced?: CampaignType): CampaignType {
  if (forced) {
    if (input.campaign_type !== undefined && input.campaign_type !== forced) {
      throw invalidCampaign(`This endpoint creates ${forced} campaigns, not ${input.campaign_type}`);
    }
    return forced;
  }
  if (input.campaign_type) return input.campaign_type;
  if (input.promotion) return 'PROMOTION';
  switch (input.voucher?.type) {
    case 'LOYALTY_CARD':
      return 'LOYALTY_PROGRAM';
    case 'GIFT_VOUCHER':
      return 'GIFT_VOUCHERS';
    case 'DISCOUNT_VOUCHER':
      return input.referral_program || input.voucher.is_referral_code ? 'REFERRAL_PROGRAM' : 'DISCOUNT_COUPONS';
    default:
      throw invalidCampaign('Provide campaign_type, or a voucher template whose type tells it');
  }
}

const EXPECTED_VOUCHER_TYPE: Record<Exclude<CampaignType, 'PROMOTION'>, VoucherTemplate['type']> = {
  DISCOUNT_COUPONS: 'DISCOUNT_VOUCHER',
  REFERRAL_PROGRAM: 'DISCOUNT_VOUCHER',
  GIFT_VOUCHERS: 'GIFT_VOUCHER',
  LOYALTY_PROGRAM: 'LOYALTY_CARD',
};

export function checkValidity(window: ValidityWindow, path: string): void {
  const problem = validityProblem(window);
  if (problem) throw errors.invalidPayload(`Property ${path}: ${problem}`);
}

export function checkDuration(value: string | null | undefined, name: string): void {
  if (value === null || value === undefined) return;
  if (!parseIsoDuration(value)) throw errors.invalidPayload(`Property .${name} '${value}' is not an ISO 8601 duration`);
}

/** The normalised template of a code-bearing campaign; loyalty campaigns get a card template by default. */
export function voucherTemplateFor(
  campaignType: CampaignType,
  given: VoucherTemplateInput | undefined,
  projectCharset: string | null,
): VoucherTemplate | null {
  if (campaignType === 'PROMOTION') {
    if (given) throw invalidCampaign('PROMOTION campaigns have tiers, not a voucher template');
    return null;
  }
  const expected = EXPECTED_VOUCHER_TYPE[campaignType];
  const voucher: VoucherTemplateInput = given ?? (campaignType === 'LOYALTY_PROGRAM' ? { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } : { type: expected });
  if (voucher.type !== expected) throw invalidCampaign(`${campaignType} campaigns hold ${expected} vouchers, not ${voucher.type}`);
  checkValidity(voucher, '.voucher');
  const codeConfig = normalizeCodeConfig(voucher.code_config, projectCharset);
  if (!codeConfig.ok) throw businessError('invalid_code_config', 'Invalid code config', { details: codeConfig.error });

  const template: VoucherTemplate = {
    type: voucher.type,
    redemption: { quantity: voucher.redemption?.quantity ?? null },
    code_config: codeConfig.config,
    is_referral_code: campaignType === 'REFERRAL_PROGRAM',
    ...(voucher.start_date !== undefined ? { start_date: voucher.start_date } : {}),
    ...(voucher.expiration_date !== undefined ? { expiration_date: voucher.expiration_date } : {}),
    ...(voucher.validity_timeframe !== undefined ? { validity_timeframe: voucher.validity_timeframe } : {}),
    ...(voucher.validity_day_of_week !== undefined ? { validity_day_of_week: voucher.validity_day_of_week } : {}),
    ...(voucher.validity_hours !== undefined ? { validity_hours: voucher.validity_hours } : {}),
  };
  switch (voucher.type) {
    case 'DISCOUNT_VOUCHER': {
      if (!voucher.discount) throw invalidCampaign(`Property 'discount' is required for ${campaignType} campaign`);
      if (voucher.gift || voucher.loyalty_card) throw invalidCampaign('A discount voucher carries a discount only');
      const problem = discountProblem(voucher.discount, checkFormula, 'voucher.discount');
      if (problem) throw errors.invalidPayload(problem);
      template.discount = normalizeDiscount(voucher.discount);
      break;
    }
    case 'GIFT_VOUCHER': {
      if (!voucher.gift) throw invalidCampaign(`Property 'gift' is required for ${campaignType} campaign`);
      if (voucher.discount || voucher.loyalty_card) throw invalidCampaign('A gift voucher carries gift credits only');
      const problem = giftProblem(voucher.gift, 'voucher.gift');
      if (problem) throw errors.invalidPayload(problem);
      template.gift = { amount: voucher.gift.amount, effect: voucher.gift.effect ?? null };
      break;
    }
    case 'LOYALTY_CARD': {
      if (!voucher.loyalty_card) throw invalidCampaign(`Property 'loyalty_card' is required for ${campaignType} campaign`);
      if (voucher.discount || voucher.gift) throw invalidCampaign('A loyalty card carries points only');
      const problem = loyaltyCardProblem(voucher.loyalty_card, 'voucher.loyalty_card');
      if (problem) throw errors.invalidPayload(problem);
      template.loyalty_card = {
        points: voucher.loyalty_card.points,
        ...(voucher.loyalty_card.expiration_rules ? { expiration_rules: voucher.loyalty_card.expiration_rules } : {}),
      };
      break;
    }
  }
  return template;
}
