import type { Checked } from './earning.ts';

// Reward definitions (seed 2.2, loyalty reference 5.1, 5.2): the type, which follows from the one
// `parameters` member present when the client leaves `type` out (DECISIONS 20), and the checks that do
// not need the database. Pure.

export const REWARD_TYPES = ['CAMPAIGN', 'COIN', 'MATERIAL'] as const;
export type RewardType = (typeof REWARD_TYPES)[number];

const MEMBER_OF: Record<RewardType, 'campaign' | 'coin' | 'product'> = { CAMPAIGN: 'campaign', COIN: 'coin', MATERIAL: 'product' };
const TYPE_OF: Record<'campaign' | 'coin' | 'product', RewardType> = { campaign: 'CAMPAIGN', coin: 'COIN', product: 'MATERIAL' };

export function parametersMember(type: RewardType): 'campaign' | 'coin' | 'product' {
  return MEMBER_OF[type];
}

/** The reward type from the `type` sent and the `parameters` members present. */
export function rewardType(type: RewardType | null | undefined, parameters: Record<string, unknown> | null | undefined): Checked<RewardType> {
  const present = (['campaign', 'coin', 'product'] as const).filter((m) => parameters?.[m] !== undefined && parameters[m] !== null);
  if (present.length > 1) return { ok: false, error: `Property .parameters must hold exactly one of campaign, coin, product; got ${present.join(', ')}` };
  const member = present[0];
  if (type) {
    if (member && TYPE_OF[member] !== type) return { ok: false, error: `Property .parameters.${member} does not fit reward type ${type}; send parameters.${MEMBER_OF[type]}` };
    if (!member) return { ok: false, error: `Property .parameters.${MEMBER_OF[type]} is required for reward type ${type}` };
    return { ok: true, value: type };
  }
  if (!member) return { ok: false, error: 'Property .parameters must hold one of campaign, coin, product (or send type)' };
  return { ok: true, value: TYPE_OF[member] };
}

const IMAGE = /\.(png|jpe?g)$/i;

/** Material reward images are HTTPS links to a .png or .jpg (.jpeg) file (seed 2.2); null when fine. */
export function imageUrlProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'Property .attributes.image_url must be an absolute URL';
  }
  if (url.protocol !== 'https:') return 'Property .attributes.image_url must be an HTTPS URL';
  if (!IMAGE.test(url.pathname)) return 'Property .attributes.image_url must point to a .png or .jpg file';
  return null;
}

/** A ratio sent as a number or as a numeric string (the vendor's request schema types them as strings). */
export function ratio(value: number | string | null | undefined, path: string, integer: boolean): Checked<number | null> {
  if (value === undefined || value === null) return { ok: true, value: null };
  const n = typeof value === 'number' ? value : /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isFinite(n) || n <= 0 || n > 1e12) return { ok: false, error: `Property ${path} must be a number greater than 0` };
  if (integer && !Number.isInteger(n)) return { ok: false, error: `Property ${path} must be a whole number` };
  return { ok: true, value: n };
}
