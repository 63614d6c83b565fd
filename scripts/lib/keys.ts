// Fixed keys for every server process the benchmark and the reliability suite start (README
// "Configuration": keys fixed in the environment), so the callers know them in advance instead of
// scraping the secrets a first start prints. Only ever used against throwaway databases.

export interface KeyPair {
  id: string;
  secret: string;
}

export const FIXED_KEYS = {
  server: { id: 'fixed-app-id-0001', secret: 'fixed-app-secret-0001' },
  client: { id: 'fixed-client-id-0001', secret: 'fixed-client-secret-0001' },
  management: { id: 'fixed-mgmt-id-0001', secret: 'fixed-mgmt-secret-0001' },
  origin: 'https://shop.example.com',
} as const;

export function serverHeaders(keys: KeyPair = FIXED_KEYS.server): Record<string, string> {
  return { 'x-app-id': keys.id, 'x-app-token': keys.secret };
}

export function clientHeaders(keys: KeyPair = FIXED_KEYS.client, origin: string = FIXED_KEYS.origin): Record<string, string> {
  return { 'x-client-application-id': keys.id, 'x-client-token': keys.secret, origin };
}

export function managementHeaders(): Record<string, string> {
  return { 'x-management-id': FIXED_KEYS.management.id, 'x-management-token': FIXED_KEYS.management.secret };
}

/** The environment that fixes the default project's and the organisation's keys. */
export function keyEnvironment(): Record<string, string> {
  return {
    PUNCHCARD_APP_ID: FIXED_KEYS.server.id,
    PUNCHCARD_APP_TOKEN: FIXED_KEYS.server.secret,
    PUNCHCARD_CLIENT_APP_ID: FIXED_KEYS.client.id,
    PUNCHCARD_CLIENT_TOKEN: FIXED_KEYS.client.secret,
    PUNCHCARD_CLIENT_ORIGINS: FIXED_KEYS.origin,
    PUNCHCARD_MANAGEMENT_ID: FIXED_KEYS.management.id,
    PUNCHCARD_MANAGEMENT_TOKEN: FIXED_KEYS.management.secret,
  };
}
