import { businessError, errors } from '../../domain/errors.ts';
import type { ListDeliveriesInput, WebhookInput } from '../../api/webhooks.ts';
import { AddressPolicy } from '../../lib/address-policy.ts';
import type { Executor } from '../../store/db.ts';
import { appendEvents } from '../../store/events.ts';
import { fromJson, toJson } from '../../store/json.ts';
import { findProject, lockProjectRow, updateProject } from '../../store/projects.ts';
import { newSecret } from '../../lib/secrets.ts';
import { WEBHOOK_TEST_EVENT } from '../../domain/webhooks/event-kinds.ts';
import * as store from '../../store/webhooks.ts';
import { inTransaction, listing, makeEvent, type Actor, type Deps } from '../context.ts';
import type { AttemptRecord } from './delivery.ts';
import { readableRows } from '../../lib/unreadable-rows.ts';

// Webhook configurations of the management API (seed 2.11, 4.4; platform reference 6.1) and the
// delivery log, a Punchcard extension.

/** Bounds the list (which has no paging) and the dispatcher's per-batch work. */
export const MAX_WEBHOOKS_PER_PROJECT = 100;

export interface WebhookObject {
  id: string;
  object: 'webhook';
  created_at: string;
  target_url: string;
  events: string[];
  active: boolean;
}

function toWebhookObject(row: store.WebhookRow): WebhookObject {
  return {
    id: row.id,
    object: 'webhook',
    created_at: row.created_at,
    target_url: row.target_url,
    events: fromJson<string[]>(row.events, []),
    active: Boolean(row.active),
  };
}

/**
 * An absolute http(s) URL without credentials, whose host is not obviously internal (an IP literal in a
 * refused range, `localhost`, a cloud metadata name). Names are judged again after DNS at every delivery.
 */
function assertTargetUrl(deps: Deps, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw errors.invalidPayload(`Property .target_url must be an absolute http(s) URL, got '${value}'`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw errors.invalidPayload(`Property .target_url must use http or https, got '${url.protocol.replace(/:$/, '')}'`);
  }
  if (url.username !== '' || url.password !== '') {
    throw errors.invalidPayload('Property .target_url must not carry credentials; the signature authenticates deliveries');
  }
  const refusal = new AddressPolicy(deps.config.webhookAllowNetworks).refusalOfHost(url.hostname);
  if (refusal !== null) {
    throw errors.invalidPayload(
      `Property .target_url must reach a public address; ${url.hostname} is ${refusal} (an installation can allow its own networks with PUNCHCARD_WEBHOOK_ALLOW_NETWORKS)`,
    );
  }
  return value;
}

type ManagementActor = Omit<Actor, 'projectId'>;

async function requireProject(tx: Executor, projectId: string): Promise<void> {
  if (!(await findProject(tx, projectId))) throw errors.notFound('project', projectId);
}

async function requireWebhook(tx: Executor, projectId: string, webhookId: string): Promise<store.WebhookRow> {
  const row = await store.findWebhook(tx, projectId, webhookId);
  if (!row) throw errors.notFound('webhook', webhookId);
  return row;
}

function webhookEvent(deps: Deps, actor: ManagementActor, projectId: string, type: string, webhook: WebhookObject) {
  return makeEvent(deps, { ...actor, projectId }, { type, entityId: webhook.id, data: { webhook } });
}

export async function createWebhook(deps: Deps, actor: ManagementActor, projectId: string, input: WebhookInput): Promise<WebhookObject> {
  const targetUrl = assertTargetUrl(deps, input.target_url);
  return inTransaction(deps, async (tx) => {
    await requireProject(tx, projectId);
    // Serialises creates of one project so the limit holds under concurrent requests.
    await lockProjectRow(tx, projectId);
    if ((await store.countWebhooks(tx, projectId)) >= MAX_WEBHOOKS_PER_PROJECT) {
      throw businessError('limit_reached', 'Limit reached', {
        details: `A project can have at most ${MAX_WEBHOOKS_PER_PROJECT} webhooks; delete one first`,
        resourceType: 'webhook',
      });
    }
    const now = deps.clock.now().toISOString();
    const id = deps.ids.next('wh');
    await store.insertWebhook(tx, {
      id,
      project_id: projectId,
      target_url: targetUrl,
      events: toJson(input.events),
      active: input.active ?? true,
      created_at: now,
      updated_at: null,
      deleted_at: null,
    });
    const webhook = toWebhookObject(await requireWebhook(tx, projectId, id));
    await appendEvents(tx, [webhookEvent(deps, actor, projectId, 'webhook.created', webhook)]);
    return webhook;
  });
}

export async function listWebhooks(deps: Deps, projectId: string) {
  await requireProject(deps.db, projectId);
  const data = await readableRows(listing(deps, { projectId }, 'webhook'), await store.listWebhooks(deps.db, projectId, MAX_WEBHOOKS_PER_PROJECT), (some) => some.map(toWebhookObject));
  return { object: 'list' as const, data_ref: 'data' as const, data, total: data.length };
}

export async function getWebhook(deps: Deps, projectId: string, webhookId: string): Promise<WebhookObject> {
  await requireProject(deps.db, projectId);
  return toWebhookObject(await requireWebhook(deps.db, projectId, webhookId));
}

/**
 * `PUT` (seed 4.4): `target_url` and `events` are required and replace what was stored; `active` defaults
 * to true, so an update that leaves it out switches the webhook on.
 */
export async function updateWebhook(
  deps: Deps,
  actor: ManagementActor,
  projectId: string,
  webhookId: string,
  input: WebhookInput,
): Promise<WebhookObject> {
  const targetUrl = assertTargetUrl(deps, input.target_url);
  return inTransaction(deps, async (tx) => {
    await requireProject(tx, projectId);
    await requireWebhook(tx, projectId, webhookId);
    const changed = await store.updateWebhook(tx, projectId, webhookId, {
      target_url: targetUrl,
      events: toJson(input.events),
      active: input.active ?? true,
      updated_at: deps.clock.now().toISOString(),
    });
    if (!changed) throw errors.notFound('webhook', webhookId);
    const webhook = toWebhookObject(await requireWebhook(tx, projectId, webhookId));
    await appendEvents(tx, [webhookEvent(deps, actor, projectId, 'webhook.updated', webhook)]);
    return webhook;
  });
}

/** Deletes a webhook; its deliveries not yet sent are canceled in the same transaction. */
export async function deleteWebhook(deps: Deps, actor: ManagementActor, projectId: string, webhookId: string): Promise<void> {
  await inTransaction(deps, async (tx) => {
    await requireProject(tx, projectId);
    const row = await requireWebhook(tx, projectId, webhookId);
    const now = deps.clock.now().toISOString();
    // Webhook row first, deliveries second: the same lock order as the dispatcher and the sender.
    if (!(await store.updateWebhook(tx, projectId, webhookId, { deleted_at: now, active: false, updated_at: now }))) {
      throw errors.notFound('webhook', webhookId);
    }
    const canceled = await store.cancelPendingDeliveries(tx, projectId, webhookId, 'the webhook was deleted', now);
    await appendEvents(tx, [
      makeEvent(deps, { ...actor, projectId }, {
        type: 'webhook.deleted',
        entityId: webhookId,
        data: { webhook: toWebhookObject(row), deleted_at: now, canceled_deliveries: canceled },
      }),
    ]);
  });
}

export interface DeliveryObject {
  id: string;
  object: 'webhook_delivery';
  webhook_id: string;
  type: string;
  event: { id: string; type: string };
  status: store.DeliveryRow['status'];
  attempts: number;
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  last_response_status: number | null;
  last_error: string | null;
  attempt_log: Array<AttemptRecord & { series_attempt: number }>;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

function toDeliveryObject(row: store.DeliveryRow): DeliveryObject {
  return {
    id: row.id,
    object: 'webhook_delivery',
    webhook_id: row.webhook_id,
    type: row.event_type,
    event: { id: row.event_id, type: row.event_type },
    status: row.status,
    attempts: row.attempts,
    // A running attempt holds a lease; its schedule is shown only once it is recorded.
    next_attempt_at: row.status === 'PENDING' ? row.next_attempt_at : null,
    last_attempt_at: row.last_attempt_at,
    last_response_status: row.last_response_status,
    last_error: row.last_error,
    // Records older than series_attempt numbered each series from 1: their `attempt` is the series' number.
    attempt_log: fromJson<AttemptRecord[]>(row.attempt_log, []).map((a) => ({ ...a, series_attempt: a.series_attempt ?? a.attempt })),
    created_at: row.created_at,
    updated_at: row.updated_at,
    finished_at: row.finished_at,
  };
}

/** `GET …/webhooks/{webhookId}/deliveries` (Punchcard extension): newest first unless ordered, keyset paged. */
export async function listDeliveries(deps: Deps, projectId: string, webhookId: string, input: ListDeliveriesInput) {
  await requireProject(deps.db, projectId);
  await requireWebhook(deps.db, projectId, webhookId);
  const descending = (input.order ?? '-created_at') === '-created_at';
  const limit = input.limit ?? 10;
  let afterSeq: number | undefined;
  if (input.starting_after_id !== undefined) {
    const cursor = await store.findDelivery(deps.db, projectId, webhookId, input.starting_after_id);
    if (!cursor) throw errors.invalidQuery(`Property .starting_after_id names no delivery of webhook ${webhookId}: ${input.starting_after_id}`);
    afterSeq = cursor.event_seq;
  }
  const rows = await store.listDeliveries(deps.db, { projectId, webhookId, status: input.status, limit, descending, afterSeq });
  const page = rows.slice(0, limit);
  const data = await readableRows(listing(deps, { projectId }, 'webhook_delivery'), page, (some) => some.map(toDeliveryObject));
  const hasMore = rows.length > limit;
  // The next page continues after the last row read, shown or left out.
  const last = page[page.length - 1];
  return {
    object: 'list' as const,
    data_ref: 'data' as const,
    data,
    has_more: hasMore,
    ...(hasMore && last ? { more_starting_after: last.id } : {}),
  };
}

/**
 * `POST …/deliveries/{deliveryId}/resend` (Punchcard extension): sends one FAILED or SUCCEEDED delivery
 * again, with a fresh series of attempts, after the delivery its webhook is sending now.
 */
export async function resendDelivery(deps: Deps, actor: ManagementActor, projectId: string, webhookId: string, deliveryId: string): Promise<DeliveryObject> {
  return inTransaction(deps, async (tx) => {
    await requireProject(tx, projectId);
    await requireWebhook(tx, projectId, webhookId);
    // Webhook row first, deliveries second: the same lock order as the dispatcher and the sender.
    await store.lockWebhooks(tx, [{ projectId, id: webhookId }]);
    const current = await store.findDelivery(tx, projectId, webhookId, deliveryId);
    if (!current) throw errors.notFound('webhook_delivery', deliveryId);
    const now = deps.clock.now().toISOString();
    if ((await store.requeueDeliveries(tx, { projectId, webhookId, id: deliveryId, now })) === 0) {
      throw errors.invalidPayload(`Delivery ${deliveryId} is ${current.status}: only FAILED or SUCCEEDED deliveries can be re-sent`);
    }
    await store.scheduleHeadIfIdle(tx, projectId, webhookId, now);
    await appendEvents(tx, [
      makeEvent(deps, { ...actor, projectId }, { type: 'webhook.deliveries.resent', entityId: webhookId, data: { webhook_id: webhookId, delivery_id: deliveryId, count: 1 } }),
    ]);
    const row = await store.findDelivery(tx, projectId, webhookId, deliveryId);
    if (!row) throw errors.notFound('webhook_delivery', deliveryId);
    return toDeliveryObject(row);
  });
}

/**
 * `POST …/deliveries/replay` (Punchcard extension): sends again every FAILED delivery of the webhook
 * created at or after `since`, in log order, with a fresh series of attempts each.
 */
export async function replayFailedDeliveries(deps: Deps, actor: ManagementActor, projectId: string, webhookId: string, since: string) {
  const sinceIso = parseInstant(since);
  return inTransaction(deps, async (tx) => {
    await requireProject(tx, projectId);
    await requireWebhook(tx, projectId, webhookId);
    await store.lockWebhooks(tx, [{ projectId, id: webhookId }]);
    const now = deps.clock.now().toISOString();
    const replayed = await store.requeueDeliveries(tx, { projectId, webhookId, failedSince: sinceIso, now });
    if (replayed > 0) {
      await store.scheduleHeadIfIdle(tx, projectId, webhookId, now);
      await appendEvents(tx, [
        makeEvent(deps, { ...actor, projectId }, { type: 'webhook.deliveries.resent', entityId: webhookId, data: { webhook_id: webhookId, failed_since: sinceIso, count: replayed } }),
      ]);
    }
    return { object: 'webhook_delivery_replay' as const, webhook_id: webhookId, since: sinceIso, replayed };
  });
}

function parseInstant(value: string): string {
  const at = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(at)) throw errors.invalidPayload(`Property .since must be a date-time such as 2026-01-31T00:00:00Z, got ${value}`);
  return new Date(at).toISOString();
}

/**
 * `POST …/webhook-token/rotate` (Punchcard extension): a new signing secret for the project's deliveries.
 * Every attempt from now on, retries of earlier deliveries included, is signed with it; receivers must be
 * given the new one. The token itself is not in the event.
 */
export async function rotateWebhookToken(deps: Deps, actor: ManagementActor, projectId: string) {
  return inTransaction(deps, async (tx) => {
    await requireProject(tx, projectId);
    const token = newSecret(40);
    const now = deps.clock.now().toISOString();
    if (!(await updateProject(tx, projectId, { webhook_token: token, updated_at: now }))) throw errors.notFound('project', projectId);
    await appendEvents(tx, [makeEvent(deps, { ...actor, projectId }, { type: 'project.webhook_token.rotated', entityId: projectId, data: { project_id: projectId, rotated_at: now } })]);
    return { object: 'webhook_token' as const, project_id: projectId, webhook_token: token };
  });
}

/**
 * `POST …/webhooks/{webhookId}/test` (Punchcard extension): appends a `webhook.test` event for this one
 * webhook. The dispatcher and the sender deliver it like any event (signed, retried, in the delivery log),
 * after whatever the webhook is still sending.
 */
export async function sendTestEvent(deps: Deps, actor: ManagementActor, projectId: string, webhookId: string) {
  return inTransaction(deps, async (tx) => {
    await requireProject(tx, projectId);
    const row = await requireWebhook(tx, projectId, webhookId);
    if (!row.active) throw errors.invalidPayload(`Webhook ${webhookId} is switched off: switch it on to send it a test event`);
    const webhook = toWebhookObject(row);
    const event = makeEvent(deps, { ...actor, projectId }, {
      type: WEBHOOK_TEST_EVENT,
      entityId: webhookId,
      data: { test: true, message: 'A test event sent from Punchcard; nothing happened in the project.', webhook },
    });
    await appendEvents(tx, [event]);
    return { object: 'webhook_test' as const, webhook_id: webhookId, event: { id: event.id, type: WEBHOOK_TEST_EVENT, created_at: event.createdAt } };
  });
}
