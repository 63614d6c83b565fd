import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clock } from '../../lib/clock.ts';
import { collectProcessMetrics, httpDuration, httpRequests, redemptions, registry } from '../../lib/metrics.ts';
import type { Db } from '../../store/db.ts';
import { refreshQueueMetrics } from '../../jobs/queue-metrics.ts';

// Prometheus metrics at /metrics (the registry and every metric: src/lib/metrics.ts): requests by route
// pattern (never by raw URL, which would make one series per id) and status, redemptions by result, and
// the job and webhook queues, read from the database when scraped so every server shows the whole queue.

/**
 * The routes that redeem. Redemptions are counted here, from the answers, rather than from the event
 * log in the worker: the count is there the moment the caller has its answer, on the server that
 * answered, also when no worker runs in that process, and it includes refusals that store nothing.
 */
const REDEMPTION_ROUTES = new Set([
  'POST /v1/redemptions',
  'POST /client/v1/redemptions',
  'POST /v1/vouchers/:code/redemption',
  'POST /v1/promotions/tiers/:promotionTierId/redemption',
  'POST /client/v1/redeem',
  'POST /v1/loyalties/:campaignId/members/:memberId/redemption',
  'POST /v1/loyalties/members/:memberId/redemption',
]);

/** 400 and 404 are refused redemptions (DECISIONS 10): their error key is the reason. */
function failureKey(payload: unknown): string {
  if (typeof payload !== 'string') return 'unknown';
  try {
    const key = (JSON.parse(payload) as { key?: unknown }).key;
    return typeof key === 'string' && /^[a-z_]{1,64}$/.test(key) ? key : 'unknown';
  } catch {
    return 'unknown';
  }
}

export function installMetrics(app: FastifyInstance, options: { processMetrics: boolean; db: Db; clock: Clock }): void {
  if (options.processMetrics) collectProcessMetrics();

  const failures = new WeakMap<FastifyRequest, string>();
  const isRedemption = (method: string, route: string | undefined) => route !== undefined && REDEMPTION_ROUTES.has(`${method} ${route}`);
  app.addHook('onSend', async (request, reply, payload) => {
    if ((reply.statusCode === 400 || reply.statusCode === 404) && isRedemption(request.method, request.routeOptions.url)) {
      failures.set(request, failureKey(payload));
    }
    return payload;
  });
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    httpRequests.inc({ method: request.method, route, status: String(reply.statusCode) });
    httpDuration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
    if (!isRedemption(request.method, request.routeOptions.url)) return;
    if (reply.statusCode >= 200 && reply.statusCode < 300) return void redemptions.inc({ route, result: 'SUCCESS', reason: '' });
    const reason = failures.get(request);
    if (reason !== undefined) redemptions.inc({ route, result: 'FAILURE', reason });
  });

  app.get('/metrics', { schema: { hide: true }, config: { auth: 'public' } }, async (_request, reply) => {
    await refreshQueueMetrics(options.db, options.clock);
    reply.type(registry.contentType);
    return registry.metrics();
  });
}
