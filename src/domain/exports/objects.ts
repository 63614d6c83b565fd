// What each exported object offers (platform reference 7.2, 7.3; loyalty reference 2.7.5, 2.8.3): the CSV
// columns a request may ask for, the columns it gets when it names none, and the orders it may sort by.
//
// Where the vendor's own lists disagree we keep every default inside the allowed list, so a request that
// echoes an export's `parameters.fields` back is always accepted:
// - publication: the vendor's defaults start with `code`, which its allowed list lacks; `code` is accepted
//   as the voucher code (the same value as `voucher_code`).
// - voucher_transactions: the vendor's defaults include `status`, which no transaction has and its allowed
//   list lacks; it is left out of the defaults.
// Any object whose allowed list contains `metadata` also accepts `metadata.<key>`: one column holding that
// member, as the vendor documents for orders.

export const EXPORTED_OBJECTS = ['voucher', 'redemption', 'customer', 'publication', 'order', 'points_expiration', 'voucher_transactions'] as const;
export type ExportedObject = (typeof EXPORTED_OBJECTS)[number];

export interface ExportObjectSpec {
  defaultFields: readonly string[];
  allowedFields: readonly string[];
  orders: readonly string[];
  defaultOrder: string;
}

const ascDesc = (...keys: string[]): string[] => keys.flatMap((k) => [`-${k}`, k]);

export const EXPORT_OBJECTS: Record<ExportedObject, ExportObjectSpec> = {
  voucher: {
    defaultFields: ['code', 'voucher_type', 'value', 'discount_type'],
    allowedFields: [
      'code',
      'voucher_type',
      'value',
      'formula',
      'discount_type',
      'campaign',
      'category',
      'start_date',
      'expiration_date',
      'gift_balance',
      'loyalty_balance',
      'redemption_quantity',
      'redemption_count',
      'active',
      'qr_code',
      'bar_code',
      'metadata',
      'id',
      'is_referral_code',
      'created_at',
      'updated_at',
      'validity_timeframe_interval',
      'validity_timeframe_duration',
      'validity_day_of_week',
      'discount_amount_limit',
      'campaign_id',
      'additional_info',
      'customer_id',
      'discount_effect',
      'discount_unit_type',
      'discount_unit_effect',
      'validation_rules_id',
      'customer_source_id',
    ],
    orders: ascDesc('created_at', 'updated_at', 'code'),
    defaultOrder: '-created_at',
  },
  redemption: {
    defaultFields: ['id', 'object', 'voucher_code', 'customer_id', 'date', 'result'],
    allowedFields: [
      'id',
      'object',
      'date',
      'voucher_code',
      'campaign',
      'promotion_tier_id',
      'customer_id',
      'customer_source_id',
      'customer_name',
      'tracking_id',
      'order_id',
      'order_amount',
      'gift_amount',
      'loyalty_points',
      'result',
      'failure_code',
      'failure_message',
      'metadata',
    ],
    orders: ascDesc('id', 'voucher_code', 'tracking_id', 'customer_id', 'created_at'),
    defaultOrder: '-created_at',
  },
  customer: {
    defaultFields: ['name', 'source_id'],
    allowedFields: [
      'name',
      'id',
      'description',
      'email',
      'source_id',
      'created_at',
      'address_city',
      'address_state',
      'address_line_1',
      'address_line_2',
      'address_country',
      'address_postal_code',
      'redemptions_total_redeemed',
      'redemptions_total_failed',
      'redemptions_total_succeeded',
      'redemptions_total_rolled_back',
      'redemptions_total_rollback_failed',
      'redemptions_total_rollback_succeeded',
      'orders_total_amount',
      'orders_total_count',
      'orders_average_amount',
      'orders_last_order_amount',
      'orders_last_order_date',
      'loyalty_points',
      'loyalty_referred_customers',
      'updated_at',
      'phone',
      'birthday',
      'metadata',
      'birthdate',
    ],
    orders: ascDesc('name', 'id', 'email', 'source_id', 'created_at', 'updated_at'),
    defaultOrder: '-created_at',
  },
  publication: {
    defaultFields: ['code', 'customer_id', 'date', 'channel'],
    allowedFields: ['code', 'voucher_code', 'customer_id', 'customer_source_id', 'date', 'channel', 'campaign', 'is_winner', 'metadata'],
    orders: ascDesc('id', 'voucher_code', 'tracking_id', 'customer_id', 'created_at', 'channel'),
    defaultOrder: '-created_at',
  },
  order: {
    defaultFields: ['id', 'source_id', 'status'],
    allowedFields: [
      'id',
      'source_id',
      'created_at',
      'updated_at',
      'status',
      'amount',
      'discount_amount',
      'items_discount_amount',
      'total_discount_amount',
      'total_amount',
      'customer_id',
      'referrer_id',
      'metadata',
    ],
    orders: ascDesc('created_at', 'updated_at', 'status'),
    defaultOrder: '-created_at',
  },
  points_expiration: {
    defaultFields: ['id', 'campaign_id', 'voucher_id', 'status', 'expires_at', 'points'],
    allowedFields: ['id', 'campaign_id', 'voucher_id', 'points', 'status', 'expires_at'],
    orders: ascDesc('expires_at'),
    // Soonest first: the order in which the points run out.
    defaultOrder: 'expires_at',
  },
  voucher_transactions: {
    defaultFields: ['id', 'type', 'source_id', 'reason', 'source', 'balance', 'amount', 'created_at'],
    allowedFields: [
      'id',
      'campaign_id',
      'voucher_id',
      'type',
      'source_id',
      'reason',
      'source',
      'balance',
      'amount',
      'related_transaction_id',
      'created_at',
      'details',
    ],
    orders: ascDesc('created_at'),
    defaultOrder: '-created_at',
  },
};

export const MAX_EXPORT_FIELDS = 100;
const METADATA_FIELD = /^metadata\.(.+)$/s;

/** The member a `metadata.<key>` column shows, or null for any other field name. */
export function metadataMemberOf(field: string): string | null {
  const match = METADATA_FIELD.exec(field);
  return match?.[1] ?? null;
}

export function isAllowedField(object: ExportedObject, field: string): boolean {
  const { allowedFields } = EXPORT_OBJECTS[object];
  if (allowedFields.includes(field)) return true;
  return allowedFields.includes('metadata') && metadataMemberOf(field) !== null;
}

export type FieldsProblem =
  /** A field the object does not offer: the vendor's `invalid_export_fields`. */
  | { kind: 'unsupported'; details: string }
  /** A malformed list (repeats, too long): a plain `invalid_payload`. */
  | { kind: 'invalid'; details: string };

/** The columns to export, in the order asked; the defaults when none are named. */
export function resolveFields(object: ExportedObject, fields: readonly string[] | undefined | null): { fields: string[] } | { problem: FieldsProblem } {
  const spec = EXPORT_OBJECTS[object];
  if (fields === undefined || fields === null || fields.length === 0) return { fields: [...spec.defaultFields] };
  if (fields.length > MAX_EXPORT_FIELDS) {
    return { problem: { kind: 'invalid', details: `Property .parameters.fields must have at most ${MAX_EXPORT_FIELDS} items` } };
  }
  const seen = new Set<string>();
  for (const [index, field] of fields.entries()) {
    if (!isAllowedField(object, field)) {
      const allowed = spec.allowedFields.includes('metadata') ? [...spec.allowedFields, 'metadata.<key>'] : spec.allowedFields;
      return { problem: { kind: 'unsupported', details: `Unsupported field used. Allowed fields: ${allowed.join(', ')}` } };
    }
    if (seen.has(field)) {
      return { problem: { kind: 'invalid', details: `Property .parameters.fields[${index}] repeats the field '${field}'` } };
    }
    seen.add(field);
  }
  return { fields: [...fields] };
}

/** The sort an `order` value names: the key and its direction. */
export function parseOrder(order: string): { key: string; descending: boolean } {
  return order.startsWith('-') ? { key: order.slice(1), descending: true } : { key: order, descending: false };
}
