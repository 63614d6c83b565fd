import { deliveredType, subscribedTypes, WEBHOOK_TEST_EVENT } from '../../domain/webhooks/event-kinds.ts';
import type { Tx } from '../../store/db.ts';
import { fromJson, toJson } from '../../store/json.ts';
import {
  activeWebhooksOf,
  eventWriters,
  insertDeliveries,
  lockDispatchCursor,
  lockWebhooks,
  logHasEventsAfter,
  peekDispatchCursor,
  readLog,
  saveDispatchCursor,
  stillRunning,
  webhooksWithPending,
  type CursorRow,
  type LogEntry,
  type WebhookRow,
} from '../../store/webhooks.ts';
import { inTransaction, type Deps } from '../context.ts';

// The dispatcher reads the event log in `seq` order and turns each event into one delivery per matching
// active webhook of the event's project. The cursor and the deliveries it creates commit in one
// transaction, so a crash anywhere either keeps both or neither: no event is skipped, none is
// dispatched twice (the unique index on webhook and event would refuse it anyway).
//
// The catch is PostgreSQL: `seq` is drawn when a row is inserted, not when its transaction commits, so
// seq 11 can be visible while seq 10 belongs to a transaction that has not committed yet. The dispatcher
// therefore only moves past a hole in the log once no transaction that could still fill it is running:
// when it first meets a hole it records the transactions holding the insert lock on `events` (any
// transaction that drew a seq holds it until it ends), and it moves past the hole only after they have
// all ended, re-reading the range then. Holes left by rolled-back transactions or erased customers
// (GDPR) are passed that way too. On SQLite writers are serialised and take their seq inside the write
// transaction, so commit order is seq order and a hole is never filled later.

export const DISPATCH_BATCH = 500;

export interface DispatchOutcome {
  /** Whether the cursor moved. */
  advanced: boolean;
  /** Events dispatched (the cursor may also have moved past holes). */
  events: number;
  deliveries: number;
  /** True when the cursor stopped at a hole another transaction may still fill. */
  waiting: boolean;
}

interface Gap {
  maxSeq: number;
  holders: string[];
}

function storedGap(cursor: CursorRow): Gap | null {
  if (cursor.gap_max_seq === null) return null;
  return { maxSeq: Number(cursor.gap_max_seq), holders: fromJson<string[]>(cursor.gap_holders, []) };
}

/** How far the log is final after `lastSeq`, and the entries up to there. */
async function finalEntries(
  tx: Tx,
  deps: Deps,
  cursor: CursorRow,
  batch: readonly LogEntry[],
): Promise<{ entries: LogEntry[]; upTo: number; gap: Gap | null }> {
  const lastSeq = Number(cursor.last_seq);
  const maxSeen = batch[batch.length - 1]?.seq ?? lastSeq;
  let prefixEnd = lastSeq;
  for (const entry of batch) {
    if (entry.seq !== prefixEnd + 1) break;
    prefixEnd = entry.seq;
  }
  if (prefixEnd === maxSeen || deps.dialect === 'sqlite') return { entries: [...batch], upTo: maxSeen, gap: null };

  // PostgreSQL and a hole right after prefixEnd.
  const known = storedGap(cursor);
  let settledUpTo: number | null = null;
  let gap: Gap | null;
  if (known && known.maxSeq > prefixEnd) {
    const running = await stillRunning(tx, known.holders);
    if (running.length === 0) settledUpTo = known.maxSeq;
    gap = { maxSeq: known.maxSeq, holders: running };
  } else {
    const holders = await eventWriters(tx);
    if (holders.length === 0) settledUpTo = maxSeen;
    gap = { maxSeq: maxSeen, holders };
  }
  if (settledUpTo === null) return { entries: batch.filter((e) => e.seq <= prefixEnd), upTo: prefixEnd, gap };
  // Nothing can enter (lastSeq, settledUpTo] any more: read it again, now complete. The range holds at
  // most one row per seq, so the limit never cuts it short.
  const entries = await readLog(tx, lastSeq, settledUpTo - lastSeq, settledUpTo);
  return { entries, upTo: settledUpTo, gap: null };
}

function matchingWebhooks(entries: readonly LogEntry[], webhooks: readonly WebhookRow[]): Array<{ entry: LogEntry; webhook: WebhookRow }> {
  const byProject = new Map<string, Array<{ webhook: WebhookRow; types: Set<string> }>>();
  for (const webhook of webhooks) {
    const list = byProject.get(webhook.project_id) ?? [];
    list.push({ webhook, types: subscribedTypes(fromJson<string[]>(webhook.events, [])) });
    byProject.set(webhook.project_id, list);
  }
  const out: Array<{ entry: LogEntry; webhook: WebhookRow }> = [];
  for (const entry of entries) {
    const type = deliveredType(entry.type);
    if (type === WEBHOOK_TEST_EVENT) {
      // A test goes to the one webhook it was asked for, whatever that webhook subscribes to.
      const target = byProject.get(entry.project_id)?.find(({ webhook }) => webhook.id === entry.entity_id);
      if (target) out.push({ entry, webhook: target.webhook });
      continue;
    }
    for (const { webhook, types } of byProject.get(entry.project_id) ?? []) {
      // A webhook receives what happens from its creation on, not the history before it.
      if (types.has(type) && entry.created_at >= webhook.created_at) out.push({ entry, webhook });
    }
  }
  return out;
}

async function createDeliveries(tx: Tx, deps: Deps, entries: readonly LogEntry[]): Promise<number> {
  const projectIds = [...new Set(entries.map((e) => e.project_id))];
  const candidates = await activeWebhooksOf(tx, projectIds);
  if (candidates.length === 0) return 0;
  // Lock, then read again: a webhook switched off or deleted meanwhile gets nothing new, and the sender
  // cannot promote a queued delivery while we decide which new delivery heads its webhook's queue.
  await lockWebhooks(tx, candidates.map((w) => ({ projectId: w.project_id, id: w.id })));
  const webhooks = await activeWebhooksOf(tx, projectIds);
  const matches = matchingWebhooks(entries, webhooks);
  if (matches.length === 0) return 0;
  const involved = new Map(matches.map(({ webhook }) => [webhook.id, { projectId: webhook.project_id, webhookId: webhook.id }]));
  const busy = await webhooksWithPending(tx, [...involved.values()]);
  const now = deps.clock.now().toISOString();
  const rows = matches.map(({ entry, webhook }) => {
    // Only the oldest PENDING delivery of a webhook is scheduled; the rest wait their turn.
    const head = !busy.has(webhook.id);
    busy.add(webhook.id);
    return {
      id: deps.ids.next('whs'),
      project_id: webhook.project_id,
      webhook_id: webhook.id,
      event_id: entry.id,
      event_seq: entry.seq,
      event_type: deliveredType(entry.type),
      status: 'PENDING' as const,
      attempts: 0,
      next_attempt_at: head ? now : null,
      locked_by: null,
      locked_until: null,
      last_attempt_at: null,
      last_response_status: null,
      last_error: null,
      attempt_log: '[]',
      created_at: now,
      updated_at: now,
      finished_at: null,
    };
  });
  await insertDeliveries(tx, rows);
  return rows.length;
}

/**
 * Moves the cursor over the next final stretch of the log (at most DISPATCH_BATCH events), creating
 * deliveries. Returns null when another process is dispatching right now.
 */
export async function dispatchWebhookEvents(deps: Deps, batchSize = DISPATCH_BATCH): Promise<DispatchOutcome | null> {
  // Most turns find nothing new; finding that out needs no write transaction (on SQLite, the write lock).
  const peek = await peekDispatchCursor(deps.db);
  if (peek && !(await logHasEventsAfter(deps.db, Number(peek.last_seq)))) return { advanced: false, events: 0, deliveries: 0, waiting: false };
  return inTransaction(deps, async (tx) => {
    const cursor = await lockDispatchCursor(tx);
    if (!cursor) return null;
    const batch = await readLog(tx, Number(cursor.last_seq), batchSize);
    if (batch.length === 0) return { advanced: false, events: 0, deliveries: 0, waiting: false };
    const { entries, upTo, gap } = await finalEntries(tx, deps, cursor, batch);
    const deliveries = entries.length > 0 ? await createDeliveries(tx, deps, entries) : 0;
    await saveDispatchCursor(tx, {
      lastSeq: upTo,
      gapMaxSeq: gap?.maxSeq ?? null,
      gapHolders: gap ? toJson(gap.holders) : null,
      now: deps.clock.now().toISOString(),
    });
    return { advanced: upTo > Number(cursor.last_seq), events: entries.length, deliveries, waiting: gap !== null };
  });
}
