import { sql } from 'kysely';
import type { Config, KeyPair } from '../../config.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Ids } from '../../lib/ids.ts';
import { hashSecret, newPepper, newSecret } from '../../lib/secrets.ts';
import type { Db, Dialect, Executor, Tx } from '../../store/db.ts';
import { fromJson, toJson } from '../../store/json.ts';
import {
  countLiveManagementKeys,
  findApiKeyByAppId,
  findManagementKey,
  insertApiKey,
  insertManagementKey,
  revokeManagementKeys,
  listLiveApiKeys,
  revokeApiKeys,
  setApiKeySecret,
  setManagementKeySecret,
} from '../../store/keys.ts';
import { findDefaultProject, updateProject } from '../../store/projects.ts';
import { getSetting, putSetting, putSettingIfAbsent } from '../../store/settings.ts';
import { inTransaction, type Deps } from '../context.ts';
import { createProjectIn } from './projects.ts';

// First-start setup: the hashing pepper, the organisation's management key and the default project with
// its keys. Keys fixed in the environment always win over stored ones, so scripts can rely on them.

export interface BootstrapResult {
  pepper: string;
  defaultProjectId: string;
  /** Secrets created by this start (shown once, never stored in clear). */
  generated: {
    management?: KeyPair;
    server?: KeyPair;
    client?: KeyPair;
  };
  /**
   * Which process showed the generated secrets, and when (this one when `generated` is not empty). With
   * several processes starting at once only one creates the keys; the others point to it.
   */
  keysShownBy: KeysShownBy | null;
}

export interface KeysShownBy {
  /** e.g. "punchcard worker (pid 4242 on host app-1)". */
  by: string;
  at: string;
}

const KEYS_SHOWN_BY = 'generated_keys_shown_by';

async function keysShownBy(db: Executor): Promise<KeysShownBy | null> {
  const raw = await getSetting(db, KEYS_SHOWN_BY);
  return raw === undefined ? null : fromJson<KeysShownBy | null>(raw, null);
}

export async function loadPepper(db: Db): Promise<string> {
  return inTransaction({ db }, (tx) => putSettingIfAbsent(tx, 'secret_pepper', newPepper()));
}

async function lockBootstrap(tx: Tx, dialect: Dialect): Promise<void> {
  // SQLite transactions are already exclusive (BEGIN IMMEDIATE); PostgreSQL processes starting together
  // queue on an advisory lock so only one of them creates the default project and keys.
  if (dialect === 'postgres') await sql`select pg_advisory_xact_lock(7382001)`.execute(tx);
}

async function ensureManagementKey(tx: Tx, deps: Deps, fixed: KeyPair | null): Promise<KeyPair | undefined> {
  const now = deps.clock.now().toISOString();
  if (fixed) {
    const existing = await findManagementKey(tx, fixed.id);
    const hash = hashSecret(deps.pepper, fixed.secret);
    if (existing) await setManagementKeySecret(tx, existing.id, hash);
    else {
      await insertManagementKey(tx, { id: deps.ids.next('mgmt'), key_id: fixed.id, secret_hash: hash, name: 'Environment', created_at: now, revoked_at: null });
    }
    return undefined;
  }
  if ((await countLiveManagementKeys(tx)) > 0) return undefined;
  const pair = { id: deps.ids.next('mgmt'), secret: newSecret() };
  await insertManagementKey(tx, {
    id: deps.ids.next('mgmt'),
    key_id: pair.id,
    secret_hash: hashSecret(deps.pepper, pair.secret),
    name: 'Generated at first start',
    created_at: now,
    revoked_at: null,
  });
  return pair;
}

async function ensureProjectKey(
  tx: Tx,
  deps: Deps,
  projectId: string,
  kind: 'server' | 'client',
  fixed: KeyPair | null,
): Promise<KeyPair | undefined> {
  const now = deps.clock.now().toISOString();
  if (fixed) {
    const hash = hashSecret(deps.pepper, fixed.secret);
    const existing = await findApiKeyByAppId(tx, fixed.id);
    if (existing && (existing.project_id !== projectId || existing.kind !== kind)) {
      throw new Error(`key id ${fixed.id} already belongs to another project or key kind; choose another id`);
    }
    if (existing) await setApiKeySecret(tx, existing.id, hash);
    else {
      await insertApiKey(tx, {
        id: deps.ids.next('key'),
        project_id: projectId,
        kind,
        app_id: fixed.id,
        secret_hash: hash,
        name: 'Environment',
        created_at: now,
        revoked_at: null,
      });
    }
    return undefined;
  }
  if ((await listLiveApiKeys(tx, projectId, kind)).length > 0) return undefined;
  return issueProjectKey(tx, deps, projectId, kind);
}

export async function issueProjectKey(tx: Tx, deps: Pick<Deps, 'ids' | 'clock' | 'pepper'>, projectId: string, kind: 'server' | 'client'): Promise<KeyPair> {
  const pair = { id: deps.ids.next(kind === 'server' ? 'app' : 'client'), secret: newSecret() };
  await insertApiKey(tx, {
    id: deps.ids.next('key'),
    project_id: projectId,
    kind,
    app_id: pair.id,
    secret_hash: hashSecret(deps.pepper, pair.secret),
    name: kind === 'server' ? 'Server-side key' : 'Client-side key',
    created_at: deps.clock.now().toISOString(),
    revoked_at: null,
  });
  return pair;
}

export async function bootstrap(
  base: { db: Db; dialect: Dialect; clock: Clock; ids: Ids; config: Config; process?: string },
): Promise<BootstrapResult> {
  const pepper = await loadPepper(base.db);
  const deps: Deps = { ...base, pepper };
  const { config } = base;
  // One transaction under one lock: when several processes start at once on a new database, exactly
  // one of them creates every key and shows the secrets; the others find them made.
  // A retried transaction starts over, so what it generated is collected anew each time.
  const { projectId, generated, shownBy } = await inTransaction(deps, async (tx) => {
    const generated: BootstrapResult['generated'] = {};
    await lockBootstrap(tx, deps.dialect);
    const management = await ensureManagementKey(tx, deps, config.managementKey);
    if (management) generated.management = management;
    let project = (await findDefaultProject(tx))?.id;
    if (project === undefined) {
      const server = config.defaultProject.serverKey;
      const client = config.defaultProject.clientKey;
      const created = await createProjectIn(
        tx,
        deps,
        { requestId: 'w-bootstrap', source: { channel: 'INTERNAL' } },
        {
          name: 'Default project',
          description: 'Created at first start',
          timezone: 'UTC',
          currency: 'USD',
          case_sensitive_codes: true,
          // Like any new project, the default one trusts no origin and allows no client-side action
          // until configured (PUNCHCARD_CLIENT_ORIGINS; the flags through the management API).
          client_trusted_domains: config.defaultProject.clientOrigins ?? [],
        },
        { isDefault: true, serverKey: server, clientKey: client },
      );
      project = created.id;
      if (!server) generated.server = { id: created.server_side_key.app_id, secret: created.server_side_key.app_token };
      if (!client) generated.client = { id: created.client_side_key.app_id, secret: created.client_side_key.app_token };
    }
    const server = await ensureProjectKey(tx, deps, project, 'server', config.defaultProject.serverKey);
    if (server) generated.server = server;
    const client = await ensureProjectKey(tx, deps, project, 'client', config.defaultProject.clientKey);
    if (client) generated.client = client;
    if (config.defaultProject.clientOrigins) {
      await updateProject(tx, project, { client_trusted_domains: toJson(config.defaultProject.clientOrigins) });
    }
    // Recorded with the keys, so a process that finds them made also finds who showed them.
    let shownBy: KeysShownBy | null;
    if (generated.management !== undefined || generated.server !== undefined || generated.client !== undefined) {
      shownBy = { by: base.process ?? 'punchcard', at: deps.clock.now().toISOString() };
      await putSetting(tx, KEYS_SHOWN_BY, JSON.stringify(shownBy));
    } else {
      shownBy = await keysShownBy(tx);
    }
    return { projectId: project, generated, shownBy };
  });
  return { pepper, defaultProjectId: projectId, generated, keysShownBy: shownBy };
}

/**
 * Replaces the generated keys (the default project's and the management key) with new ones; keys fixed
 * by the environment stay.
 */
export async function rotateGeneratedKeys(deps: Deps, process = 'punchcard keys --rotate'): Promise<{ management?: KeyPair; server?: KeyPair; client?: KeyPair }> {
  return inTransaction(deps, async (tx) => {
    await lockBootstrap(tx, deps.dialect);
    const project = await findDefaultProject(tx);
    if (!project) throw new Error('no default project yet: run `punchcard start` or `punchcard migrate` first');
    const now = deps.clock.now().toISOString();
    const out: { management?: KeyPair; server?: KeyPair; client?: KeyPair } = {};
    if (!deps.config.managementKey) {
      await revokeManagementKeys(tx, now);
      const management = await ensureManagementKey(tx, deps, null);
      if (management) out.management = management;
    }
    for (const kind of ['server', 'client'] as const) {
      const fixed = kind === 'server' ? deps.config.defaultProject.serverKey : deps.config.defaultProject.clientKey;
      if (fixed) continue;
      await revokeApiKeys(tx, project.id, now, kind);
      out[kind] = await issueProjectKey(tx, deps, project.id, kind);
    }
    if (Object.keys(out).length > 0) await putSetting(tx, KEYS_SHOWN_BY, JSON.stringify({ by: process, at: now }));
    return out;
  });
}
