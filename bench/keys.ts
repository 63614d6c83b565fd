// Fixed keys for the benchmark's servers (README "Configuration": keys fixed in the environment), so the
// load generator knows them in advance. Only ever used against throwaway benchmark databases.

export const BENCH_KEYS = {
  server: { id: 'bench-app-id-0001', secret: 'bench-app-secret-0001' },
  client: { id: 'bench-client-id-0001', secret: 'bench-client-secret-0001' },
  management: { id: 'bench-mgmt-id-0001', secret: 'bench-mgmt-secret-0001' },
};

export const BENCH_ORIGIN = 'https://shop.bench.example';

export function serverHeaders(): Record<string, string> {
  return { 'x-app-id': BENCH_KEYS.server.id, 'x-app-token': BENCH_KEYS.server.secret };
}

export function clientHeaders(): Record<string, string> {
  return { 'x-client-application-id': BENCH_KEYS.client.id, 'x-client-token': BENCH_KEYS.client.secret, origin: BENCH_ORIGIN };
}
