// Rows written straight into a test database, for store tests that need their parents to exist.

const CREATED = '2026-01-01T00:00:00.000Z';

/** A project with default settings (codes compared case-insensitively). */
export function projectRow(id: string) {
  return {
    id,
    name: id,
    description: '',
    timezone: 'UTC',
    currency: 'USD',
    dial_code: null,
    webhook_version: 'v2024-01-01',
    api_version: 'v2018-08-01',
    cluster_id: 'local',
    case_sensitive_codes: false,
    is_sandbox: false,
    is_default: false,
    client_trusted_domains: '[]',
    client_redeem_enabled: false,
    client_publish_enabled: false,
    client_list_vouchers_enabled: false,
    client_create_customer_enabled: false,
    client_loyalty_events_enabled: false,
    client_set_voucher_expiration_date_enabled: false,
    webhooks_callout_notifications: '{}',
    api_usage_notifications: '{}',
    default_code_config: null,
    limits: null,
    webhook_token: `token-${id}`,
    created_at: CREATED,
  };
}

/** A live customer with zeroed totals; `metadata` is stored as JSON text. */
export function customerRow(projectId: string, id: string, sourceId: string | null, options: { metadata?: Record<string, unknown>; createdAt?: string } = {}) {
  return {
    id,
    project_id: projectId,
    source_id: sourceId,
    name: null,
    description: null,
    email: null,
    phone: null,
    birthday: null,
    birthdate: null,
    address: null,
    address_city: null,
    metadata: JSON.stringify(options.metadata ?? {}),
    system_metadata: '{}',
    redemptions_total_redeemed: 0,
    redemptions_total_failed: 0,
    redemptions_total_succeeded: 0,
    redemptions_total_rolled_back: 0,
    redemptions_total_rollback_failed: 0,
    redemptions_total_rollback_succeeded: 0,
    orders_total_amount: 0,
    orders_total_count: 0,
    orders_last_order_amount: null,
    orders_last_order_date: null,
    loyalty_referred_customers: 0,
    created_at: options.createdAt ?? CREATED,
    updated_at: null,
    deleted_at: null,
  };
}
