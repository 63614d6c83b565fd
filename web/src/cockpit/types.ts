// What the cockpit API answers, as the pages read it. Apart from api.ts (which needs a browser) so that
// code drawing sample data for the console's preview can be tested without one.

export interface Brand {
  name: string;
  logo_url: string | null;
  primary_color: string;
  accent_color: string;
  website_url: string | null;
  privacy_policy_url: string | null;
  terms_of_use_url: string | null;
  permission_reminder: string | null;
  contact: { email: string | null; phone: string | null };
  address: string | null;
  currency: string;
}

interface Coded {
  code: string;
  campaign: string | null;
  start_date: string | null;
  expiration_date: string | null;
  qr_url: string | null;
  barcode_url: string | null;
}

export interface Reward {
  id: string;
  name: string;
  type: string;
  points: number | null;
  affordable: boolean;
  /** False for pay-with-points rewards: they pay part of an order at the shop's checkout. */
  redeemable: boolean;
  stock_left: number | null;
}

export interface Transaction {
  id: string;
  /** A ledger transaction type, or OPENING_BALANCE: the points the card started with. */
  type: string;
  reason: string | null;
  points: number;
  balance_after: number;
  created_at: string;
}

/** One page of a card's history, newest first; the balance before its oldest entry lets it add up. */
export interface HistoryPage {
  data: Transaction[];
  balance_before: number;
  has_more: boolean;
  more_starting_after: string | null;
}

/** One validation rule's terms as the customer may read them (the conditions in the rule's wire form). */
export interface CouponRule {
  rules: Record<string, unknown> | null;
  more_conditions: boolean;
  applies_to: string[];
  excluded: string[];
}

export interface CouponTerms {
  validity_timeframe: { interval?: string; duration?: string } | null;
  validity_day_of_week: number[] | null;
  validity_hours: { daily?: Array<{ start_time?: string; expiration_time?: string; days_of_week?: number[] }> } | null;
  uses_left: number | null;
  conditions: CouponRule[];
}

export interface LoyaltyCard extends Coded {
  balance: number;
  points: number;
  pending_points: number;
  next_expiration: { date: string; points: number } | null;
  tier: { name: string; from: number; to: number | null } | null;
  /** The points the program's tiers count: the balance, or the points collected this period. */
  tier_points: number;
  next_tier: { name: string; from: number; points_needed: number } | null;
  rewards: Reward[];
  history: HistoryPage;
}

export interface Discount {
  type?: string;
  percent_off?: number;
  amount_off?: number;
  unit_off?: number;
  unit_type?: string;
  fixed_amount?: number;
}

export interface Wallet {
  brand: Brand;
  customer: { name: string | null; email: string | null };
  loyalty_cards: LoyaltyCard[];
  vouchers: Array<Coded & CouponTerms & { discount: Discount | null; status: string }>;
  gift_cards: Array<Coded & { amount: number; balance: number; status: string }>;
  referrals: { codes: Array<{ code: string; campaign: string | null; share_url: string | null; status: string }>; friends_joined: number };
}

export interface Preferences {
  brand: Brand;
  groups: Array<{ id: string; name: string; description: string | null; consents: string[] }>;
  consents: Array<{ id: string; name: string; description: string | null; category: string | null; granted: boolean; updated_at: string | null }>;
}
