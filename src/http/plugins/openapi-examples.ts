// The examples of the OpenAPI document (./openapi.ts), drawn from the schemas so they cannot drift from
// them: what a schema declares comes first (const, examples, default, enum, format, pattern, bounds);
// otherwise a member's name picks a value a shop would send or see (ids with the prefix of their kind,
// amounts in cents, a customer with an address). Members a schema requires are always shown; optional
// ones near the top and the commonly useful ones deeper down, so an example stays readable.
// tests/http/api-reference.test.ts checks every example against its schema.

type Schema = Record<string, unknown>;

interface Place {
  components: Record<string, unknown>;
  /** The member (or path parameter, in snake case) the value is for. */
  member: string;
  /** What the enclosing object is (a customer, an order, …), from its `object` member, its member's name or its schema's. */
  kind: string;
  /** The kind a named schema's name gives the object being drawn (`CreateCustomerBody`: customer). */
  component: string;
  /** Objects entered so far. */
  depth: number;
}

/** An example value of `schema`, `member` naming what it is for (a member or path parameter name). */
export function exampleOf(schema: unknown, components: Record<string, unknown>, member = ''): unknown {
  return draw(schema, { components, member: snakeCase(member), kind: '', component: '', depth: 0 });
}

// Below this many objects deep every member is shown, from here on only required and USEFUL ones.
const FULL_DEPTH = 2;
// From here on only required members.
const REQUIRED_DEPTH = 6;
const USEFUL = new Set(['id', 'source_id', 'code', 'name', 'email', 'object', 'amount', 'price', 'quantity', 'metadata', 'created_at', 'type', 'status', 'points', 'customer', 'order', 'items', 'voucher', 'discount', 'campaign', 'result', 'product_id', 'sku_id', 'customer_id', 'campaign_id', 'discount_amount', 'amount_off', 'currency', 'credits']);

// Prefixes of the ids Punchcard makes (src/lib/ids.ts callers), by the kind of object.
const ID_PREFIXES: Record<string, string> = {
  customer: 'cust', referrer: 'cust', holder: 'cust', campaign: 'camp', voucher: 'v', promotion_tier: 'promo', promotion: 'promo',
  order: 'ord', product: 'prod', sku: 'sku', redemption: 'r', redemption_rollback: 'rr', rollback: 'rr', reward: 'rew',
  reward_assignment: 'rewa', loyalty_reward: 'rewa', publication: 'pub', validation_rules: 'val', validation_rule: 'val', rule: 'val',
  validation_rules_assignment: 'asgm', assignment: 'asgm', segment: 'seg', earning_rule: 'ern', loyalty_tier: 'ltr', tier: 'ltr',
  export: 'exp', async_action: 'aa', category: 'cat', products_collection: 'pc', product_collection: 'pc', metadata_schema: 'ms',
  schema: 'ms', project: 'proj', destination_project: 'proj', stacking_rules: 'str', promotion_stack: 'stack', stack: 'stack',
  consent: 'cnst', consent_group: 'cngr', group: 'cngr', referral_tier: 'rt', webhook: 'wh', webhook_delivery: 'whs', delivery: 'whs',
  user: 'user', deleted_by_user: 'user', api_key: 'key', key: 'key', app: 'app', client: 'client', location: 'loc', campaign_template: 'camp_tpl',
  loyalty_points_bucket: 'lopb', pending_points: 'lopp', bin_entry: 'del', pernament_deletion: 'del', custom_event_schema: 'ms', branding: 'brd', member: 'v',
  loyalty_tier_reward: 'asgm', related_transaction: 'vtx', transaction: 'vtx', automation: 'auto', request: 'v-', related_object: 'v', object: 'v',
  redeemable: 'v', vouchers: 'v', redemption_record: 'r', applicable_to_entry: 'prod', tiers: 'promo', stack_tiers: 'promo', validation: 'valid',
};

const NAMES: Record<string, string> = {
  customer: 'Ada Lovelace', referrer: 'Grace Hopper', campaign: 'Spring sale 2026', promotion_tier: '10% off orders over EUR 50',
  product: 'Organic cotton T-shirt', sku: 'Organic cotton T-shirt, M, blue', reward: 'Free coffee', loyalty_reward: 'Free coffee',
  segment: 'VIP customers', validation_rules: 'Orders over EUR 50', category: 'Seasonal', loyalty_tier: 'Gold', earning_rule: 'Points per order',
  project: 'Webshop EU', user: 'Grace Hopper', location: 'Berlin store', products_collection: 'Summer collection', metadata_schema: 'customer',
};

const EMAILS: Record<string, string> = { referrer: 'grace.hopper@example.com', user: 'grace.hopper@example.com' };

const SOURCE_IDS: Record<string, string> = {
  customer: 'crm-10482', referrer: 'crm-10311', order: 'web-2026-0142', product: 'tshirt-organic', sku: 'tshirt-organic-m-blue', order_item: 'tshirt-organic',
};

// Values by member name, for members whose schema says no more than their type.
const STRINGS: Record<string, string> = {
  code: 'SPRING-10', email: 'ada.lovelace@example.com', phone: '+49 30 901820', description: 'Shown to customers at checkout',
  city: 'Berlin', state: 'Berlin', line_1: 'Unter den Linden 5', line_2: '2nd floor', country: 'Germany', postal_code: '10117',
  currency: 'EUR', banner: '10% off your order', category: 'Seasonal', tracking_id: 'track_6Kq2xLm9Rt', prefix: 'SPRING-', postfix: '-2026',
  pattern: 'SPRING-####', charset: 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789', interval: 'P1D', duration: 'PT1H', start_time: '09:00', expiration_time: '18:00',
  time_zone: 'Europe/Berlin', timezone: 'Europe/Berlin', locale: 'en', language: 'en', reason: 'Order cancelled by the customer', message: 'Order over EUR 50 required',
  key: 'ssn_01937a2c5e8f00000001', event: 'customer.order.paid', related_object_type: 'voucher', formula: '[order.amount] * 0.1',
  sku: 'TS-ORG-M-BLUE', title: 'Spring sale', text: 'Your code: SPRING-10', color: '#1f6feb', token: 'a3f9c2e7b1d04c58', app_token: 'a3f9c2e7b1d04c58',
  password: 'correct horse battery staple', role: 'ADMIN', channel: 'API', tag: 'spring', value: 'vip', field: 'segment', property: 'segment',
  first_name: 'Ada', last_name: 'Lovelace', campaign_name: 'Spring sale 2026', failure_code: 'customer_rules_violated', street: 'Unter den Linden 5',
  failure_message: 'The customer does not match the rules of this voucher', postal: '10117', dial_code: '+49', primary_color: '#1f6feb',
  accent_color: '#f59e0b', access_token: 'a3f9c2e7b1d04c58', webhook_token: 'a3f9c2e7b1d04c58', csrf_token: 'a3f9c2e7b1d04c58',
  api_version: 'v2018-08-01', grant_type: 'client_credentials', voucher_type: 'DISCOUNT_VOUCHER', campaign_type: 'DISCOUNT_COUPONS', source: 'API', campaign: 'Spring sale 2026', activity_duration_after_publishing: 'P30D', additional_info: 'Printed on the spring flyer', login: 'grace.hopper@example.com', effect: 'APPLY_TO_ORDER',
};

const NUMBERS: Record<string, number> = {
  amount: 2500, price: 1250, initial_amount: 2500, total_amount: 2500, average_amount: 2500, last_order_amount: 2500, items_amount: 2500,
  discount_amount: 250, items_discount_amount: 250, total_discount_amount: 250, applied_discount_amount: 250, amount_off: 500, fixed_amount: 2000,
  amount_limit: 1000, aggregated_amount_limit: 5000, percent_off: 10, unit_off: 1, credits: 2500, balance: 100, points: 100, quantity: 2,
  initial_quantity: 2, discount_quantity: 1, hierarchy: 1, limit: 10, page: 1, ttl: 7, redemption_quantity: 1, redeemed_quantity: 0, total: 1,
  year: 2026, month: 3, day: 2, hours: 1, priority: 1, count: 3, max: 100, min: 1, length: 8,
};

const DATES: Record<string, string> = {
  created_at: '2026-03-02T10:15:00.000Z', updated_at: '2026-03-09T16:40:00.000Z', date: '2026-03-02T10:15:00.000Z',
  start_date: '2026-04-01T00:00:00.000Z', expiration_date: '2026-06-30T23:59:59.000Z', birthday: '1990-12-10', birthdate: '1990-12-10',
};

const FORMAT_SAMPLES: Record<string, string> = {
  'date-time': '2026-03-02T10:15:00.000Z',
  date: '2026-03-02',
  'date-or-date-time': '2026-03-02T10:15:00.000Z',
  time: '09:30:00',
  email: 'ada.lovelace@example.com',
  uri: 'https://shop.example.com/',
  duration: 'P1D',
};

// Tried in turn for a string whose pattern the member's value does not match.
const PATTERN_SAMPLES = ['EUR', 'PT1M', 'P1D', '2', '2500', 'https://shop.example.com/', 'segment', 'ada.lovelace@example.com', '10.5'];

function draw(schema: unknown, at: Place): unknown {
  if (typeof schema !== 'object' || schema === null) return null;
  const node = schema as Schema;
  if (typeof node.$ref === 'string') {
    const name = node.$ref.startsWith('#/components/schemas/') ? node.$ref.slice('#/components/schemas/'.length) : '';
    return draw(at.components[name], { ...at, component: kindOfComponent(name) });
  }
  if (node.const !== undefined) return node.const;
  if (Array.isArray(node.examples) && node.examples.length > 0) return node.examples[0];
  if (node.default !== undefined) return node.default;
  if (Array.isArray(node.enum) && node.enum.length > 0) return node.enum.find((value) => value !== null) ?? null;
  if (Array.isArray(node.allOf)) {
    const parts = node.allOf.map((part) => draw(part, at));
    return parts.every(isRecord) ? Object.assign({}, ...parts) : parts[0];
  }
  const branches = (Array.isArray(node.anyOf) ? node.anyOf : Array.isArray(node.oneOf) ? node.oneOf : null) as Schema[] | null;
  if (branches) return draw(branches.find((branch) => branch?.type !== 'null') ?? branches[0], at);
  const type = Array.isArray(node.type) ? node.type.find((t) => t !== 'null') : node.type;
  switch (type) {
    case 'object':
      return drawObject(node, at);
    case 'array': {
      if (node.maxItems === 0 || node.items === undefined) return [];
      const item = draw(node.items, { ...at, member: singular(at.member) });
      return Array.from({ length: Math.max(1, typeof node.minItems === 'number' ? node.minItems : 1) }, () => item);
    }
    case 'string':
      return drawString(node, at);
    case 'integer':
    case 'number':
      return drawNumber(node, at, type === 'integer');
    case 'boolean':
      return !/^(has_more|deleted|is_dynamic|blocked|skipped)$/.test(at.member);
    case 'null':
      return null;
    default:
      return {};
  }
}

function drawObject(node: Schema, at: Place): Record<string, unknown> {
  const properties = (node.properties ?? {}) as Record<string, Schema>;
  const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : []);
  // What the object is: its `object` member when that has one value, else its member's name when that
  // names a kind (a `referrer` is a customer), else its schema's name.
  const own = objectName(properties.object);
  const kind = own ?? (ID_PREFIXES[at.member] !== undefined || NAMES[at.member] !== undefined ? at.member : at.component || at.member);
  const out: Record<string, unknown> = {};
  for (const [member, sub] of Object.entries(properties)) {
    if (!required.has(member) && !shown(member, sub, at.depth)) continue;
    const value = draw(sub, { ...at, member, kind, component: '', depth: at.depth + 1 });
    // An optional object with nothing worth showing in it says nothing.
    if (!required.has(member) && isRecord(value) && Object.keys(value).length === 0 && !member.endsWith('metadata')) continue;
    out[member] = value;
  }
  // A record of free-form values (metadata): one entry, as a shop would tag a customer or an order.
  if (Object.keys(properties).length === 0 && /metadata$/.test(at.member) && at.member !== 'system_metadata' && acceptsString(node.additionalProperties)) {
    out.segment = 'vip';
  }
  // A discount the schema leaves open (any members): the most common kind.
  if (Object.keys(properties).length === 0 && at.member === 'discount' && acceptsAnything(node.additionalProperties)) return { type: 'PERCENT', percent_off: 10 };
  return out;
}

function shown(member: string, schema: Schema, depth: number): boolean {
  if (schema.deprecated === true || member.endsWith('_formula') || schema.type === 'null') return false;
  if (depth < FULL_DEPTH) return true;
  return depth < REQUIRED_DEPTH && USEFUL.has(member);
}

function drawString(node: Schema, at: Place): string {
  const format = typeof node.format === 'string' ? node.format : undefined;
  const candidates = [
    ...(format === undefined || format === 'date-time' || format === 'date' || format === 'date-or-date-time' ? [dateFor(at.member, format)] : []),
    format === 'uri' || at.member.endsWith('_url') || at.member === 'url' ? urlFor(at.member, at.kind) : undefined,
    format === undefined ? stringFor(at) : undefined,
    format === undefined ? undefined : FORMAT_SAMPLES[format],
    ...(typeof node.pattern === 'string' ? PATTERN_SAMPLES : []),
  ];
  const minLength = typeof node.minLength === 'number' ? node.minLength : 0;
  const maxLength = typeof node.maxLength === 'number' ? node.maxLength : Infinity;
  const pattern = typeof node.pattern === 'string' ? new RegExp(node.pattern, 'u') : null;
  for (const candidate of candidates) {
    if (candidate === undefined) continue;
    if (candidate.length >= minLength && candidate.length <= maxLength && (pattern === null || pattern.test(candidate))) return candidate;
  }
  return 'x'.repeat(Math.max(1, minLength));
}

function dateFor(member: string, format: string | undefined): string | undefined {
  const known = DATES[member] ?? (member.endsWith('_at') || member.endsWith('_date') ? FORMAT_SAMPLES['date-time'] : undefined);
  if (format === undefined) return known;
  if (format === 'date') return known?.slice(0, 10) ?? FORMAT_SAMPLES.date;
  return known !== undefined && known.length > 10 ? known : FORMAT_SAMPLES[format];
}

function urlFor(member: string, kind: string): string {
  if (/image/.test(member)) return 'https://shop.example.com/images/tshirt-organic.jpg';
  if (/webhook/.test(member) || (member === 'url' && /webhook/.test(kind))) return 'https://shop.example.com/hooks/punchcard';
  if (member === 'url' && (kind === 'qr' || kind === 'barcode')) return `https://shop.example.com/codes/SPRING-10/${kind}.png`;
  if (member === 'url') return 'https://shop.example.com/';
  return `https://shop.example.com/${member.replace(/_url$/, '').replaceAll('_', '-')}`;
}

function stringFor(at: Place): string | undefined {
  const { member, kind } = at;
  if (member === 'id' && kind === 'redeemable') return STRINGS.code;
  if (member === 'id') return idOf(kind);
  if (member === 'name') return NAMES[kind] ?? 'Spring sale 2026';
  if (member === 'source_id') return SOURCE_IDS[kind] ?? 'ext-10482';
  if (member === 'object' || member === 'related_object') return kind || 'voucher';
  if (member === 'email' && EMAILS[kind] !== undefined) return EMAILS[kind];
  if (member === 'description' && kind === 'customer') return 'Regular customer since 2021';
  if (STRINGS[member] !== undefined) return STRINGS[member];
  if (member.endsWith('_id')) return idOf(member.slice(0, -'_id'.length));
  // An array of ids (validation_rules, categories, …): the member names their kind.
  if (ID_PREFIXES[member] !== undefined) return idOf(member);
  return member === '' ? 'vip' : member.replaceAll('_', ' ');
}

/** An id as Punchcard makes them: the kind's prefix and 20 hex digits, the same for the same kind. */
function idOf(kind: string): string {
  const words = kind.split('_');
  // `parent_redemption`, `related_object_parent`: the longest known ending names the kind.
  const known = words.map((_, i) => words.slice(i).join('_')).find((ending) => ID_PREFIXES[ending] !== undefined);
  const prefix = known === undefined ? (kind || 'obj') : ID_PREFIXES[known]!;
  if (prefix === 'v-') return 'v-0c9f3a52e17b84d6aa';
  let hash = 0x811c9dc5;
  for (const char of known ?? kind) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0;
  return `${prefix}_01937a2c5e8f${hash.toString(16).padStart(8, '0')}`;
}

function drawNumber(node: Schema, at: Place, integer: boolean): number {
  const member = at.member;
  let value =
    (at.kind === 'gift' && member === 'balance' ? 2000 : undefined) ??
    NUMBERS[member] ??
    (/amount|price$/.test(member) ? 2500 : /points|balance$/.test(member) ? 100 : /^total_|_count$|^count_/.test(member) ? 3 : /percent/.test(member) ? 10 : 1);
  if (typeof node.maximum === 'number') value = Math.min(value, node.maximum);
  if (typeof node.exclusiveMaximum === 'number' && value >= node.exclusiveMaximum) value = node.exclusiveMaximum - 1;
  if (typeof node.minimum === 'number') value = Math.max(value, node.minimum);
  if (typeof node.exclusiveMinimum === 'number' && value <= node.exclusiveMinimum) value = node.exclusiveMinimum + 1;
  return integer ? Math.ceil(value) : value;
}

/** What an object schema is, from its `object` member (written as a one-value enum). */
function objectName(schema: Schema | undefined): string | undefined {
  const value = Array.isArray(schema?.enum) && schema.enum.length === 1 ? schema.enum[0] : schema?.const;
  return typeof value === 'string' && value !== 'list' ? value.toLowerCase().replaceAll('-', '_') : undefined;
}

/** `CreateCustomerBody` → `customer`, `PromotionTier` → `promotion_tier`. */
function kindOfComponent(name: string): string {
  return snakeCase(name.replace(/^(Create|Update|Upsert|Import)/, '').replace(/(Body|Input|Response)$/, ''));
}

function snakeCase(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

function singular(member: string): string {
  return member.endsWith('ies') ? `${member.slice(0, -3)}y` : member.endsWith('s') && !member.endsWith('ss') ? member.slice(0, -1) : member;
}

function acceptsAnything(schema: unknown): boolean {
  return schema === undefined || schema === true || (typeof schema === 'object' && schema !== null && Object.keys(schema).length === 0);
}

function acceptsString(schema: unknown): boolean {
  if (schema === undefined || schema === true) return true;
  if (typeof schema !== 'object' || schema === null) return false;
  const node = schema as Schema;
  if (Object.keys(node).length === 0 || node.type === 'string') return true;
  return Array.isArray(node.anyOf) && node.anyOf.some(acceptsString);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
