import type { Config } from '../config.ts';
import type { Clock } from '../lib/clock.ts';
import type { Ids } from '../lib/ids.ts';
import { withMembers } from '../lib/objects.ts';
import type { RowReader, UnreadableRowLog } from '../lib/unreadable-rows.ts';
import type { Db, Dialect, Tx } from '../store/db.ts';
import { flushEvents, holdEvents, type EventSource, type NewEvent } from '../store/events.ts';
import { holdWrites } from '../store/held-writes.ts';
import { isRetryableConflict } from '../store/sql-errors.ts';

/** What every use case needs from the outside world; built once per process. */
export interface Deps {
  db: Db;
  dialect: Dialect;
  clock: Clock;
  ids: Ids;
  config: Config;
  /** Installation-wide key for hashing stored secrets. */
  pepper: string;
  /** Where a row left out of a list for damaged JSON is reported (src/lib/unreadable-rows.ts); the process log. */
  log?: UnreadableRowLog;
}

/** Who is acting, for which project, in which request: stamped on every event the use case appends. */
export interface Actor {
  projectId: string;
  requestId: string;
  source: EventSource;
}

/**
 * Who reads a list of `object`s, for readableRows (src/lib/unreadable-rows.ts): a row whose stored JSON
 * does not parse is left out and reported to the process log under the request's id.
 */
export function listing(deps: Pick<Deps, 'log'>, who: { projectId: string; requestId?: string }, object: string): RowReader {
  return { projectId: who.projectId, object, log: deps.log, requestId: who.requestId };
}

export function internalActor(projectId: string, requestId: string): Actor {
  return { projectId, requestId, source: { channel: 'INTERNAL' } };
}

/**
 * Runs `fn` in one transaction. A transaction that lost a race the database detected (deadlock,
 * serialization failure, busy SQLite file) is run again from the start; `fn` must therefore only touch
 * the database, never the outside world.
 */
export async function inTransaction<T>(deps: Pick<Deps, 'db'>, fn: (tx: Tx) => Promise<T>): Promise<T> {
  const attempts = 5;
  for (let attempt = 1; ; attempt++) {
    try {
      return await deps.db.transaction().execute(async (tx) => {
        holdEvents(tx);
        holdWrites(tx);
        const result = await fn(tx);
        await flushEvents(tx);
        return result;
      });
    } catch (error) {
      if (attempt >= attempts || !isRetryableConflict(error)) throw error;
      await new Promise((r) => setTimeout(r, 5 * attempt + Math.random() * 10));
    }
  }
}

// Event ids carry the vendor's area prefixes (`evcus_…` for customer events, `evred_…` for redemptions).
const EVENT_PREFIX: Record<string, string> = {
  customer: 'evcus',
  redemption: 'evred',
  voucher: 'evvou',
  campaign: 'evcam',
  publication: 'evpub',
  business_validation_rule: 'evval',
  product: 'evprd',
  sku: 'evprd',
  order: 'evord',
  export: 'evexp',
};

export type EventInit = Omit<NewEvent, 'id' | 'projectId' | 'source' | 'groupId' | 'createdAt'>;

/** Stamps an event with its id, project, actor and time. */
export function makeEvent(deps: Pick<Deps, 'ids' | 'clock'>, actor: Actor, init: EventInit): NewEvent {
  const area = init.type.split('.')[0] ?? '';
  return withMembers(init, {
    id: deps.ids.next(EVENT_PREFIX[area] ?? 'evgen'),
    projectId: actor.projectId,
    source: actor.source,
    groupId: actor.requestId,
    createdAt: deps.clock.now().toISOString(),
  });
}
