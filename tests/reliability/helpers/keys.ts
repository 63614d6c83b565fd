// Fixed keys for every server process the suite starts (README "Configuration"): the suite knows them
// in advance instead of scraping the secrets a first start prints.

export interface KeyPair {
  id: string;
  secret: string;
}

export const RELIABILITY_KEYS = {
  server: { id: 'rel-app-id-0001', secret: 'rel-app-secret-0001' },
  client: { id: 'rel-client-id-0001', secret: 'rel-client-secret-0001' },
  management: { id: 'rel-mgmt-id-0001', secret: 'rel-mgmt-secret-0001' },
  origin: 'https://shop.example.com',
} as const;

export function serverHeaders(keys: KeyPair = RELIABILITY_KEYS.server): Record<string, string> {
  return { 'x-app-id': keys.id, 'x-app-token': keys.secret };
}

export function clientHeaders(keys: KeyPair = RELIABILITY_KEYS.client, origin: string = RELIABILITY_KEYS.origin): Record<string, string> {
  return { 'x-client-application-id': keys.id, 'x-client-token': keys.secret, origin };
}

export function managementHeaders(): Record<string, string> {
  return { 'x-management-id': RELIABILITY_KEYS.management.id, 'x-management-token': RELIABILITY_KEYS.management.secret };
}

/** The environment that fixes the default project's and the organisation's keys. */
export function keyEnvironment(): Record<string, string> {
  return {
    PUNCHCARD_APP_ID: RELIABILITY_KEYS.server.id,
    PUNCHCARD_APP_TOKEN: RELIABILITY_KEYS.server.secret,
    PUNCHCARD_CLIENT_APP_ID: RELIABILITY_KEYS.client.id,
    PUNCHCARD_CLIENT_TOKEN: RELIABILITY_KEYS.client.secret,
    PUNCHCARD_CLIENT_ORIGINS: RELIABILITY_KEYS.origin,
    PUNCHCARD_MANAGEMENT_ID: RELIABILITY_KEYS.management.id,
    PUNCHCARD_MANAGEMENT_TOKEN: RELIABILITY_KEYS.management.secret,
  };
}
