import { sql, Transaction } from 'kysely';
import { detachMember } from '../lib/objects.ts';
import type { Executor } from './db.ts';
import { prepared } from './prepared.ts';

// The definitions cache. A validation or redemption reads a dozen rows that describe the project rather
// than the customer or the order — settings and stacking rules, campaigns, promotion tiers and stacks,
// validation rules and their assignments, categories, metadata schemas, earning rules — and they change
// rarely. Each process keeps them here, per project, valid for one value of
// `projects.definitions_version`, which triggers move with every change of those tables in the change's
// own transaction (migration 0037).
//
// A reader first reads the version (one indexed read; once per transaction), then takes what it needs
// from the cache or loads and keeps it. A change committed before the version was read has moved it, so it
// is never missed — in this process or another one sharing the database. What a reader loads is kept only
// if the version is still the one it read, checked again after loading (so only on a miss): rows another
// transaction changed meanwhile, or that the reader's own transaction changed and may still roll back, are
// never filed under the version. Cached values are shared by every request: callers must not change them
// (rows are frozen).

/** Projects kept at once; the oldest is dropped first. */
const MAX_PROJECTS = 1000;
/** Entries kept per project; past it the project's entries start again. */
const MAX_ENTRIES = 20_000;

interface ProjectCache {
  version: number;
  entries: Map<string, unknown>;
}

const cache = new Map<string, ProjectCache>();

const versionOf = prepared((db, p: { projectId: string }) => db.selectFrom('projects').select('definitions_version').where('id', '=', p.projectId));

/** A transaction's views, so that the version is read once per transaction and project. */
const views = new WeakMap<object, Map<string, DefinitionsView>>();

/** What one reader may take from the cache: the entries of the version it read. */
export class DefinitionsView {
  readonly projectId: string;
  /** null: the project does not exist (nothing is cached for it). */
  readonly version: number | null;
  readonly #db: Executor;
  /** Set once the version moved under this reader: from then on nothing it loads is kept. */
  #stale = false;

  constructor(db: Executor, projectId: string, version: number | null) {
    this.#db = db;
    this.projectId = projectId;
    this.version = version;
  }

  #entries(): Map<string, unknown> | null {
    const project = cache.get(this.projectId);
    return project && project.version === this.version ? project.entries : null;
  }

  /** The value under `key`, loaded through this reader's executor when the cache does not hold it. */
  async get<T>(key: string, load: (db: Executor) => Promise<T>): Promise<T> {
    const entries = this.#entries();
    if (entries?.has(key)) return entries.get(key) as T;
    const value = freeze(await load(this.#db));
    if (await this.#stillCurrent()) this.#keep(key, value);
    return value;
  }

  /**
   * Values by id: those the cache holds, the rest loaded together (`load` answers the ones that exist).
   * An id that does not exist is remembered as such too.
   */
  async many<V>(kind: string, ids: readonly string[], load: (db: Executor, ids: string[]) => Promise<ReadonlyMap<string, V>>): Promise<Map<string, V>> {
    const out = new Map<string, V>();
    const entries = this.#entries();
    const missing: string[] = [];
    for (const id of new Set(ids)) {
      const key = `${kind}\u0000${id}`;
      if (entries?.has(key)) {
        const value = entries.get(key) as V | null;
        if (value !== null) out.set(id, value);
      } else {
        missing.push(id);
      }
    }
    if (missing.length === 0) return out;
    const loaded = await load(this.#db, missing);
    const current = await this.#stillCurrent();
    for (const id of missing) {
      const value = loaded.get(id);
      const kept = value === undefined ? null : freeze(value);
      if (current) this.#keep(`${kind}\u0000${id}`, kept);
      if (kept !== null) out.set(id, kept);
    }
    return out;
  }

  /** Whether the version is still the one this reader read (through its own executor, so its own writes count). */
  async #stillCurrent(): Promise<boolean> {
    if (this.#stale || this.version === null) return false;
    const row = await versionOf.first(this.#db, { projectId: this.projectId });
    this.#stale = !row || Number(row.definitions_version) !== this.version;
    return !this.#stale;
  }

  #keep(key: string, value: unknown): void {
    if (this.version === null) return;
    let project = cache.get(this.projectId);
    if (!project || project.version < this.version) {
      project = { version: this.version, entries: new Map() };
      cache.delete(this.projectId);
      cache.set(this.projectId, project);
      if (cache.size > MAX_PROJECTS) cache.delete(cache.keys().next().value as string);
    }
    // A newer version is cached already: what this reader loaded may be older than it.
    if (project.version !== this.version) return;
    if (project.entries.size >= MAX_ENTRIES) project.entries.clear();
    project.entries.set(key, value);
  }
}

/** Freezes a loaded value's top level (and the values of a map or the items of an array) against changes by callers. */
function freeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  if (Array.isArray(value)) for (const item of value) freeze(item);
  else if (value instanceof Map) for (const item of value.values()) freeze(item);
  return Object.freeze(value);
}

/**
 * The definitions view for one project, as of now: inside a transaction the version is read once and the
 * view reused for the rest of it; outside one, every call reads it anew (callers keep the view for the
 * request).
 */
export async function definitions(db: Executor, projectId: string): Promise<DefinitionsView> {
  const known = db instanceof Transaction ? views.get(db)?.get(projectId) : undefined;
  if (known) return known;
  const row = await versionOf.first(db, { projectId });
  return viewAt(db, projectId, row ? row.definitions_version : null);
}

/**
 * The project's definitions version as a column of a statement that a request runs first anyway (the
 * voucher of GET /v1/vouchers/{code}, a validation's customer, the customer a redemption locks): one
 * statement instead of two. Read there
 * it is as current as a read of its own, so the view definitionsAt makes of it misses no change that
 * committed before the statement ran.
 */
export function definitionsVersionColumn(projectId: string) {
  return sql<number | string | null>`(select ${sql.ref('projects.definitions_version')} from ${sql.table('projects')} where ${sql.ref('projects.id')} = ${projectId})`.as(
    'definitions_version',
  );
}

/**
 * The view for a version read with definitionsVersionColumn (null: the project does not exist). A
 * transaction that already has a view keeps it; `undefined` (the statement found no row, so it read no
 * version) reads the version now.
 */
export async function definitionsAt(db: Executor, projectId: string, version: number | string | null | undefined): Promise<DefinitionsView> {
  if (version === undefined) return definitions(db, projectId);
  return (db instanceof Transaction ? views.get(db)?.get(projectId) : undefined) ?? viewAt(db, projectId, version);
}

/** A row read with definitionsVersionColumn, without that column, and the definitions view of its version. */
export async function rowWithDefinitions<R extends { definitions_version: number | string | null }>(
  db: Executor,
  projectId: string,
  found: R | undefined,
): Promise<{ row: Omit<R, 'definitions_version'>; definitions: DefinitionsView } | undefined> {
  if (!found) return undefined;
  // definitionsVersionColumn is selected after the row's own columns, so detaching it copies nothing.
  const { row, value: version } = detachMember(found, 'definitions_version');
  return { row, definitions: await definitionsAt(db, projectId, version) };
}

function viewAt(db: Executor, projectId: string, version: number | string | null): DefinitionsView {
  const view = new DefinitionsView(db, projectId, version === null ? null : Number(version));
  if (db instanceof Transaction) {
    const memo = views.get(db);
    if (memo) memo.set(projectId, view);
    else views.set(db, new Map([[projectId, view]]));
  }
  return view;
}

/** Forgets every cached definition (tests that write definitions around the triggers). */
export function clearDefinitionsCache(): void {
  cache.clear();
}
