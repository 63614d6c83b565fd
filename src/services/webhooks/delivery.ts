import type { Selectable } from 'kysely';
import { MAX_DELIVERY_ATTEMPTS, retryDelayMs } from '../../domain/webhooks/event-kinds.ts';
import { punchcardSignature, vendorSignature } from '../../domain/webhooks/signature.ts';
import { AddressPolicy } from '../../lib/address-policy.ts';
import { randomString } from '../../lib/ids.ts';
import { stringifyAnswer } from '../../lib/json-text.ts';
import { webhookDeliveries, webhookLatency } from '../../lib/metrics.ts';
import { durable } from '../../store/db.ts';
import type { EventSource } from '../../store/events.ts';
import { fromJson, toJson } from '../../store/json.ts';
import { findProject } from '../../store/projects.ts';
import type { EventsTable, WebhookDeliveryStatus } from '../../store/schema.ts';
import {
  cancelDelivery,
  claimDueDeliveries,
  eventsForDelivery,
  findWebhookAnyState,
  hasDueDeliveries,
  lockWebhooks,
  promoteNextDelivery,
  purgeFinishedDeliveries,
  recordAttempt,
  type DeliveryRow,
} from '../../store/webhooks.ts';
import { inTransaction, type Deps } from '../context.ts';
import { expandEventData } from '../events/expand.ts';
import { ANSWER_BODY_LIMIT, DeliveryFailedError, guardedTransport, TargetNotAllowedError, type Resolver, type WebhookTransport } from './transport.ts';

// The sender: claims due deliveries, POSTs the signed envelope to the webhook's target, and records the
// outcome. Only the oldest unfinished delivery of a webhook is ever due (store/webhooks.ts), so a webhook
// receives its events in log order: event N+1 is sent only after event N succeeded or was given up.
// Claims are leases taken with SKIP LOCKED on PostgreSQL, so several processes never send the same
// attempt at once; a sender that dies mid-attempt leaves a lease that runs out, and the next attempt
// (counted anew) goes out then.

export const DELIVERY_TIMEOUT_MS = 10_000;
/** Longer than any attempt can take, so a live sender never loses its claim mid-attempt. */
const LEASE_MS = 60_000;
const SEND_BATCH = 10;
const SUCCEEDED_RETENTION_MS = 30 * 24 * 3600_000;
const FAILED_RETENTION_MS = 90 * 24 * 3600_000;

export interface AttemptRecord {
  /** 1, 2, 3 … over the delivery's whole life, re-sends included (the `attempts` the delivery shows). */
  attempt: number;
  /**
   * The attempt's place in its series: the first sending, or one re-send (1 = the series' first try).
   * Retry delays and the 12-attempt limit count within a series. Absent from records written before re-sends
   * kept counting, whose `attempt` restarted at each re-send.
   */
  series_attempt?: number;
  at: string;
  response_status: number | null;
  error: string | null;
  duration_ms: number;
  /** What was sent, without the signatures; absent from records written before the log kept it. */
  request?: AttemptRequest;
  /** The receiver's answer; absent when it did not answer. */
  response?: AttemptResponse;
}

export interface AttemptRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  body_truncated: boolean;
}

export interface AttemptResponse {
  headers: Record<string, string>;
  body: string;
  body_truncated: boolean;
}

/** Signature headers are secrets' products: the log shows that they were sent, not their values. */
const WITHHELD_HEADERS = new Set(['x-voucherify-signature', 'x-punchcard-signature']);

function loggedRequest(url: string, headers: Record<string, string>, body: string): AttemptRequest {
  const shown = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, WITHHELD_HEADERS.has(name) ? '(withheld)' : value]));
  const bytes = Buffer.from(body, 'utf8');
  return { url, headers: shown, body: bytes.subarray(0, ANSWER_BODY_LIMIT).toString('utf8'), body_truncated: bytes.length > ANSWER_BODY_LIMIT };
}

/**
 * Where attempt `attempt` (the delivery's `attempts` once claimed) stands in its series. A series ends with
 * a success or with its last allowed failure; an attempt after that is a re-send's first (or later, when
 * attempts were cut short by a crash: they count without a record).
 */
export function seriesAttempt(log: readonly AttemptRecord[], attempt: number): number {
  const last = log[log.length - 1];
  if (!last) return attempt;
  const lastInSeries = last.series_attempt ?? last.attempt;
  const ended = last.error === null || lastInSeries >= MAX_DELIVERY_ATTEMPTS;
  // Max: a delivery re-sent before re-sends kept counting restarted `attempts` below its log's numbers.
  return Math.max(1, attempt - last.attempt + (ended ? 0 : lastInSeries));
}

/** The vendor envelope (platform reference 6.5 A). */
export interface WebhookEnvelope {
  id: string;
  project_id: string;
  created_at: string;
  type: string;
  data: Record<string, unknown>;
  source: { id: string; object: 'webhook'; target_url: string };
  event: {
    id: string;
    type: string;
    created_at: string;
    entity_id: string | null;
    group_id: string;
    event_source: EventSource;
  };
}

/** `data` is the event's payload as readers see it (expanded: src/services/events/expand.ts). */
export function buildEnvelope(delivery: DeliveryRow, event: Selectable<EventsTable>, data: Record<string, unknown>, targetUrl: string): WebhookEnvelope {
  return {
    id: delivery.id,
    project_id: delivery.project_id,
    created_at: delivery.created_at,
    type: delivery.event_type,
    data,
    source: { id: delivery.webhook_id, object: 'webhook', target_url: targetUrl },
    event: {
      id: event.id,
      type: delivery.event_type,
      created_at: event.created_at,
      entity_id: event.entity_id,
      group_id: event.group_id,
      event_source: fromJson<EventSource>(event.source, { channel: 'INTERNAL' }),
    },
  };
}

/**
 * What the delivery log says about an attempt that got no HTTP answer: the transport's reason (which
 * names the kind of failure only for a public address: src/services/webhooks/transport.ts), else a
 * generic one. The errno and the address are never named.
 */
function describeFailure(error: unknown): string {
  if (error instanceof TargetNotAllowedError) return 'target address not allowed';
  return error instanceof DeliveryFailedError ? error.reason : 'delivery failed';
}

export interface WebhookSenderOptions {
  /** Replaces the network entirely (and with it the address policy). */
  transport?: WebhookTransport;
  /** Resolves target names for the default transport; tests answer without DNS. */
  resolve?: Resolver;
  /**
   * The operators' log: one line per attempt with its outcome, and the real cause of an attempt without
   * an HTTP answer (the delivery log shows only a generic reason).
   */
  log?: { info(details: object, message: string): void; warn(details: object, message: string): void };
  timeoutMs?: number;
  batchSize?: number;
  /** Distinguishes this sender's leases from other processes'. */
  senderId?: string;
}

export class WebhookSender {
  readonly id: string;
  readonly #deps: Deps;
  readonly #transport: WebhookTransport;
  readonly #log: WebhookSenderOptions['log'];
  readonly #timeoutMs: number;
  readonly #batchSize: number;

  constructor(deps: Deps, options: WebhookSenderOptions = {}) {
    this.#deps = deps;
    this.#transport = options.transport ?? guardedTransport(new AddressPolicy(deps.config.webhookAllowNetworks), options.resolve);
    this.#log = options.log;
    this.#timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
    this.#batchSize = options.batchSize ?? SEND_BATCH;
    this.id = options.senderId ?? `whw-${randomString(12)}`;
  }

  /** Claims the due deliveries (one per webhook at most) and attempts them concurrently; returns how many. */
  async deliverDue(): Promise<number> {
    const deps = this.#deps;
    const now = deps.clock.now();
    // Most turns find nothing due; finding that out needs no write transaction.
    if (!(await hasDueDeliveries(deps.db, now.toISOString()))) return 0;
    const claimed = await inTransaction(deps, (tx) =>
      claimDueDeliveries(tx, this.id, now.toISOString(), new Date(now.getTime() + LEASE_MS).toISOString(), this.#batchSize),
    );
    if (claimed.length === 0) return 0;
    // An event leaves the building only once it is on disk (SQLite group commit: src/store/db.ts durable()).
    await durable(deps.db);
    const events = await eventsForDelivery(
      deps.db,
      claimed.map((d) => ({ projectId: d.project_id, eventId: d.event_id })),
    );
    const payloads = await this.#payloads([...events.values()]);
    await Promise.all(claimed.map((delivery) => this.#attempt(delivery, events.get(delivery.event_id), payloads.get(delivery.event_id))));
    return claimed.length;
  }

  /** The events' payloads as receivers get them, references expanded, one round of queries per project. */
  async #payloads(events: ReadonlyArray<Selectable<EventsTable>>): Promise<Map<string, Record<string, unknown>>> {
    const out = new Map<string, Record<string, unknown>>();
    for (const projectId of new Set(events.map((e) => e.project_id))) {
      const ofProject = events.filter((e) => e.project_id === projectId);
      const expanded = await expandEventData(
        this.#deps.db,
        projectId,
        ofProject.map((e) => ({ type: e.type, data: fromJson<Record<string, unknown>>(e.data, {}) })),
      );
      ofProject.forEach((event, i) => out.set(event.id, expanded[i] ?? {}));
    }
    return out;
  }

  async #attempt(delivery: DeliveryRow, event: Selectable<EventsTable> | undefined, data: Record<string, unknown> | undefined): Promise<void> {
    const deps = this.#deps;
    const webhook = await findWebhookAnyState(deps.db, delivery.project_id, delivery.webhook_id);
    const project = await findProject(deps.db, delivery.project_id);
    // Nothing can be sent: the webhook or project was deleted, or the event was erased (GDPR) after
    // dispatch. The delivery ends as CANCELED with the reason, and the next one moves up.
    const reason = !webhook || webhook.deleted_at !== null ? 'the webhook was deleted' : !project ? 'the project was deleted' : !event ? 'the event was erased' : null;
    if (reason !== null || !webhook || !project || !event) {
      await this.#cancel(delivery, reason ?? 'unavailable');
      return;
    }
    const body = stringifyAnswer(buildEnvelope(delivery, event, data ?? {}, webhook.target_url));
    const unix = Math.floor(deps.clock.now().getTime() / 1000);
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'Punchcard-Webhooks/1',
      'x-voucherify-signature': vendorSignature(project.webhook_token, body),
      'x-punchcard-signature': punchcardSignature(project.webhook_token, unix, body),
      'x-punchcard-delivery': delivery.id,
      'x-punchcard-attempt': String(delivery.attempts),
    };
    const started = performance.now();
    let responseStatus: number | null = null;
    let error: string | null = null;
    let cause: unknown = undefined;
    let answer: AttemptResponse | undefined;
    try {
      const response = await this.#transport({ url: webhook.target_url, headers, body, timeoutMs: this.#timeoutMs });
      responseStatus = response.status;
      answer = { headers: response.headers ?? {}, body: response.body ?? '', body_truncated: response.bodyTruncated ?? false };
      if (response.status < 200 || response.status > 299) error = `answered HTTP ${response.status}`;
    } catch (failure) {
      error = describeFailure(failure);
      cause = failure;
    }
    const seconds = (performance.now() - started) / 1000;
    const status = await this.#record(delivery, {
      responseStatus,
      error,
      durationMs: Math.round(seconds * 1000),
      request: loggedRequest(webhook.target_url, headers, body),
      response: answer,
    });
    const outcome = status === 'SUCCEEDED' ? 'succeeded' : status === 'FAILED' ? 'failed' : 'retry';
    webhookDeliveries.inc({ outcome });
    webhookLatency.observe({ outcome }, seconds);
    const details = {
      delivery_id: delivery.id,
      webhook_id: delivery.webhook_id,
      project_id: delivery.project_id,
      event_type: delivery.event_type,
      attempt: delivery.attempts,
      outcome,
      response_status: responseStatus,
      duration_ms: Math.round(seconds * 1000),
      ...(error !== null ? { error } : {}),
      ...(cause !== undefined ? { err: cause } : {}),
    };
    if (error === null) this.#log?.info(details, 'webhook delivered');
    else this.#log?.warn(details, outcome === 'failed' ? `webhook delivery failed for good: ${error}` : `webhook attempt failed, will retry: ${error}`);
  }

  async #record(
    delivery: DeliveryRow,
    result: { responseStatus: number | null; error: string | null; durationMs: number; request: AttemptRequest; response: AttemptResponse | undefined },
  ): Promise<WebhookDeliveryStatus> {
    const deps = this.#deps;
    const now = deps.clock.now();
    const log = fromJson<AttemptRecord[]>(delivery.attempt_log, []);
    const inSeries = seriesAttempt(log, delivery.attempts);
    log.push({
      attempt: delivery.attempts,
      series_attempt: inSeries,
      at: delivery.last_attempt_at ?? now.toISOString(),
      response_status: result.responseStatus,
      error: result.error,
      duration_ms: result.durationMs,
      request: result.request,
      ...(result.response ? { response: result.response } : {}),
    });
    let status: WebhookDeliveryStatus = 'PENDING';
    let nextAttemptAt: string | null = null;
    if (result.error === null) status = 'SUCCEEDED';
    else if (inSeries >= MAX_DELIVERY_ATTEMPTS) status = 'FAILED';
    else nextAttemptAt = new Date(now.getTime() + retryDelayMs(inSeries)).toISOString();
    await inTransaction(deps, async (tx) => {
      await lockWebhooks(tx, [{ projectId: delivery.project_id, id: delivery.webhook_id }]);
      const recorded = await recordAttempt(tx, delivery, this.id, {
        status,
        nextAttemptAt,
        responseStatus: result.responseStatus,
        error: result.error,
        attemptLog: toJson(log),
        now: now.toISOString(),
      });
      if (recorded && status !== 'PENDING') await promoteNextDelivery(tx, delivery.project_id, delivery.webhook_id, now.toISOString());
    });
    return status;
  }

  async #cancel(delivery: DeliveryRow, reason: string): Promise<void> {
    const deps = this.#deps;
    const now = deps.clock.now().toISOString();
    await inTransaction(deps, async (tx) => {
      await lockWebhooks(tx, [{ projectId: delivery.project_id, id: delivery.webhook_id }]);
      if (await cancelDelivery(tx, delivery.project_id, delivery.id, reason, now)) {
        await promoteNextDelivery(tx, delivery.project_id, delivery.webhook_id, now);
      }
    });
    webhookDeliveries.inc({ outcome: 'canceled' });
    this.#log?.info({ delivery_id: delivery.id, webhook_id: delivery.webhook_id, project_id: delivery.project_id, event_type: delivery.event_type, outcome: 'canceled', reason }, 'webhook delivery canceled');
  }

  /** Drops old finished deliveries in bounded batches: succeeded and canceled after 30 days, failed after 90. */
  async purgeOld(limit = 1000): Promise<number> {
    const now = this.#deps.clock.now().getTime();
    const db = this.#deps.db;
    const done = await purgeFinishedDeliveries(db, ['SUCCEEDED', 'CANCELED'], new Date(now - SUCCEEDED_RETENTION_MS).toISOString(), limit);
    const failed = await purgeFinishedDeliveries(db, ['FAILED'], new Date(now - FAILED_RETENTION_MS).toISOString(), limit);
    return done + failed;
  }
}
