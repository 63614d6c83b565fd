import type { Brand, Wallet } from './types.ts';

// What the console's branding preview shows: the brand the cockpit would derive from a branding (as
// src/services/cockpit/wallet.ts does on the server), and a sample customer's wallet to draw it on.

/** The cockpit's colours when the branding sets none (src/services/cockpit/wallet.ts). */
export const DEFAULT_PRIMARY = '#1c7ed6';
export const DEFAULT_ACCENT = '#f08c00';

export const COLOR = /^#[0-9a-fA-F]{6}$/;

/** The branding's members as a form holds them; an empty string is a member not set. */
export interface BrandingValues {
  brand: { name: string; privacy_policy_url: string; terms_of_use_url: string; permission_reminder: string; website_url: string };
  address: { street: string; city: string; postal: string; state: string; country: string };
  contact: { email: string; phone: string };
  cockpit: { logo_url: string; primary_color: string; accent_color: string };
}

/** A link the cockpit puts in an href: http(s) only; a bare host is read as https (as the server does). */
export function cockpitHref(value: string): string | null {
  const text = value.trim();
  if (text === '') return null;
  try {
    const url = new URL(/^[a-z][a-z0-9+.-]*:/i.test(text) ? text : `https://${text}`);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '' ? url.toString() : null;
  } catch {
    return null;
  }
}

/**
 * The brand the cockpit shows for these values. `colors` are the ones to draw: the caller keeps the last
 * valid colour while one is being typed. The logo shows only once it is a whole http(s) address, as the
 * server requires, so a half-typed address is not fetched.
 */
export function previewBrand(values: BrandingValues, projectName: string, currency: string, colors: { primary: string; accent: string }): Brand {
  const text = (value: string) => (value.trim() === '' ? null : value.trim());
  const { street, postal, city, state, country } = values.address;
  const address = [street, [postal, city].map((p) => p.trim()).filter(Boolean).join(' '), state, country]
    .map((part) => part.trim())
    .filter((part) => part)
    .join(', ');
  const logo = values.cockpit.logo_url.trim();
  return {
    name: text(values.brand.name) ?? projectName,
    logo_url: /^https?:\/\/\S+\.\S+/i.test(logo) ? cockpitHref(logo) : null,
    primary_color: colors.primary,
    accent_color: colors.accent,
    website_url: cockpitHref(values.brand.website_url),
    privacy_policy_url: cockpitHref(values.brand.privacy_policy_url),
    terms_of_use_url: cockpitHref(values.brand.terms_of_use_url),
    permission_reminder: text(values.brand.permission_reminder),
    contact: { email: text(values.contact.email), phone: text(values.contact.phone) },
    address: address === '' ? null : address,
    currency,
  };
}

const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();

/** A sample customer's wallet: a loyalty card with a balance, a tier and a reward, a coupon and a gift card. */
export function sampleWallet(brand: Brand): Wallet {
  return {
    brand,
    customer: { name: 'Alex Sample', email: null },
    loyalty_cards: [
      {
        code: 'SAMPLE-CARD-1234',
        campaign: 'Loyalty club (sample)',
        start_date: null,
        expiration_date: null,
        qr_url: null,
        barcode_url: null,
        balance: 1250,
        points: 1400,
        pending_points: 40,
        next_expiration: { date: inDays(90).slice(0, 10), points: 150 },
        tier: { name: 'Silver', from: 500, to: 1999 },
        tier_points: 1250,
        next_tier: { name: 'Gold', from: 2000, points_needed: 750 },
        rewards: [{ id: 'sample-reward', name: 'Free coffee', type: 'MATERIAL', points: 200, affordable: true, redeemable: true, stock_left: null }],
        history: {
          data: [
            { id: 'sample-2', type: 'POINTS_ACCRUAL', reason: null, points: 150, balance_after: 1250, created_at: inDays(-3) },
            { id: 'sample-1', type: 'OPENING_BALANCE', reason: null, points: 1100, balance_after: 1100, created_at: inDays(-40) },
          ],
          balance_before: 0,
          has_more: false,
          more_starting_after: null,
        },
      },
    ],
    vouchers: [
      {
        code: 'SAMPLE-10OFF',
        campaign: 'Welcome coupon (sample)',
        start_date: null,
        expiration_date: inDays(30),
        qr_url: null,
        barcode_url: null,
        discount: { type: 'PERCENT', percent_off: 10 },
        status: 'ACTIVE',
        validity_timeframe: null,
        validity_day_of_week: null,
        validity_hours: null,
        uses_left: 1,
        conditions: [],
      },
    ],
    gift_cards: [{ code: 'SAMPLE-GIFT-5000', campaign: 'Gift card (sample)', start_date: null, expiration_date: null, qr_url: null, barcode_url: null, amount: 5000, balance: 3250, status: 'ACTIVE' }],
    referrals: { codes: [], friends_joined: 0 },
  };
}
