// OAuth scopes (seed part 5): each opens every method under one path prefix.

const SCOPE_PREFIXES: Record<string, string> = {
  api: '/v1',
  client_api: '/client/v1',
  vouchers: '/v1/vouchers',
  client_vouchers: '/client/v1/vouchers',
  promotions: '/v1/promotions',
  client_promotions: '/client/v1/promotions',
  campaigns: '/v1/campaigns',
  client_publish: '/client/v1/publish',
  publications: '/v1/publications',
  exports: '/v1/exports',
  client_validate: '/client/v1/validate',
  validations: '/v1/validations',
  client_validations: '/client/v1/validations',
  qualifications: '/v1/qualifications',
  client_qualifications: '/client/v1/qualifications',
  client_redeem: '/client/v1/redeem',
  redemptions: '/v1/redemptions',
  client_redemptions: '/client/v1/redemptions',
  customers: '/v1/customers',
  client_customers: '/client/v1/customers',
  orders: '/v1/orders',
  products: '/v1/products',
  skus: '/v1/skus',
  'validation-rules': '/v1/validation-rules',
  'validation-rules-assignments': '/v1/validation-rules-assignments',
  segments: '/v1/segments',
  events: '/v1/events',
  client_events: '/client/v1/events',
  rewards: '/v1/rewards',
  assets: '/v1/assets',
  'task-results': '/v1/task-results',
  loyalties: '/v1/loyalties',
  client_consents: '/client/v1/consents',
  consents: '/v1/consents',
  'async-actions': '/v1/async-actions',
  'product-collections': '/v1/product-collections',
  categories: '/v1/categories',
  'metadata-schemas': '/v1/metadata-schemas',
  locations: '/v1/locations',
  referrals: '/v1/referrals',
  'trash-bin': '/v1/trash-bin',
  templates: '/v1/templates',
};

export const KNOWN_SCOPES: readonly string[] = Object.keys(SCOPE_PREFIXES);

export type ScopeParseResult = { ok: true; scopes: string[] } | { ok: false; reason: 'empty' | 'commas' | 'unknown'; bad: string };

/** Parses the `scope` form field: names separated by single spaces; commas and unknown names are refused. */
export function parseScopes(raw: string): ScopeParseResult {
  if (raw.includes(',')) return { ok: false, reason: 'commas', bad: raw };
  const names = raw.split(' ').filter((s) => s !== '');
  if (names.length === 0) return { ok: false, reason: 'empty', bad: raw };
  const unknown = names.find((n) => !(n in SCOPE_PREFIXES));
  if (unknown !== undefined) return { ok: false, reason: 'unknown', bad: unknown };
  return { ok: true, scopes: [...new Set(names)] };
}

/** Whether any of the scopes opens `path` (the URL path without query string). */
export function scopesAllowPath(scopes: readonly string[], path: string): boolean {
  // The vendor writes the SKU prefix as /v1/SKUs; paths are matched case-insensitively for that reason.
  const normalized = path.toLowerCase().replace(/\/+$/, '');
  return scopes.some((scope) => {
    const prefix = SCOPE_PREFIXES[scope]?.toLowerCase();
    if (prefix === undefined) return false;
    return normalized === prefix || normalized.startsWith(`${prefix}/`);
  });
}
