import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

// Every Prometheus metric of the process, in one registry: HTTP (src/http/plugins/metrics.ts), the
// worker's jobs and webhook deliveries, redemptions. `GET /metrics` of a server renders it; a separate
// `punchcard worker` serves it on PUNCHCARD_WORKER_METRICS_PORT. Add a metric here with one line, e.g.
//   export const dbPoolWait = histogram('punchcard_db_pool_wait_seconds', 'Time waiting for a pooled connection', []);
// then observe it where it happens (`dbPoolWait.observe(seconds)`).
//
// Labels carry bounded sets only (route patterns, kinds, outcomes), never ids.

export const registry = new Registry();

/** Latency buckets from half a millisecond to ten seconds. */
export const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function counter<L extends string>(name: string, help: string, labelNames: readonly L[]): Counter<L> {
  return new Counter({ name, help, labelNames, registers: [registry] });
}

export function gauge<L extends string>(name: string, help: string, labelNames: readonly L[]): Gauge<L> {
  return new Gauge({ name, help, labelNames, registers: [registry] });
}

export function histogram<L extends string>(name: string, help: string, labelNames: readonly L[], buckets = LATENCY_BUCKETS): Histogram<L> {
  return new Histogram({ name, help, labelNames, buckets, registers: [registry] });
}

let processMetrics = false;
/** CPU, memory, event loop lag and GC of the process (once per process; tests leave it off). */
export function collectProcessMetrics(): void {
  if (processMetrics) return;
  processMetrics = true;
  collectDefaultMetrics({ register: registry, prefix: 'punchcard_' });
}

// HTTP
export const httpRequests = counter('punchcard_http_requests_total', 'HTTP requests answered, by method, route pattern and status code', ['method', 'route', 'status']);
export const connectionsRefused = counter('punchcard_connections_refused_total', "Connections closed because their client address held its share of the connection cap (reason address_share)", ['reason']);
export const httpDuration = histogram('punchcard_http_request_duration_seconds', 'Time from request arrival to response, by method and route pattern', ['method', 'route']);

// Redemptions, as answered to callers (src/http/plugins/metrics.ts knows the redemption routes).
export const redemptions = counter(
  'punchcard_redemptions_total',
  'Redemption requests answered, by route pattern, result (SUCCESS or FAILURE) and failure reason (the error key; empty on success)',
  ['route', 'result', 'reason'],
);

// Jobs (src/jobs/worker.ts)
export const jobRuns = counter('punchcard_jobs_total', 'Job attempts the worker finished, by kind and outcome (done, retry, failed, released, taken_over)', ['kind', 'outcome']);
export const jobDuration = histogram('punchcard_job_duration_seconds', 'Time one job attempt ran, by kind', ['kind'], [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900]);
export const queueDepth = gauge('punchcard_job_queue_depth', 'Unfinished jobs by kind and state (due, scheduled for later, running); unsent webhook deliveries are kind webhook.delivery (due, scheduled for a retry, queued behind an earlier delivery of their webhook)', ['kind', 'state']);
export const queueOldestAge = gauge('punchcard_job_queue_oldest_age_seconds', 'Age of the oldest due or running job by kind, measured from when it was due; for webhook.delivery, of the oldest unsent delivery (0 when none)', ['kind']);

// Webhook deliveries (src/services/webhooks/delivery.ts)
export const webhookDeliveries = counter(
  'punchcard_webhook_deliveries_total',
  'Webhook delivery attempts, by outcome: succeeded, retry (failed, will be tried again), failed (given up), canceled',
  ['outcome'],
);
export const webhookLatency = histogram('punchcard_webhook_delivery_duration_seconds', 'Time one webhook attempt took until the receiver answered or the attempt failed, by outcome', ['outcome']);
