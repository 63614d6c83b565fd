import { businessError, errors } from '../../domain/errors.ts';
import { appendEvents } from '../../store/events.ts';
import { listLiveApiKeys, revokeApiKey, type ApiKeyRow } from '../../store/keys.ts';
import { findProject, lockProjectRow } from '../../store/projects.ts';
import type { Executor } from '../../store/db.ts';
import { inTransaction, makeEvent, type Actor, type Deps } from '../context.ts';
import { issueProjectKey } from './bootstrap.ts';

// A project's application keys (server side and client side) as the console's Settings shows them: ids,
// never secrets, which are stored hashed. Rotating a key retires it at once (requests with it get 401,
// OAuth tokens issued to it stop working) and issues a new key of the same kind whose secret is answered
// this once. Keys fixed by the environment (PUNCHCARD_APP_ID/PUNCHCARD_APP_TOKEN and the client pair) cannot be rotated here:
// the next start would bring the old secret back.

export interface ApiKeyObject {
  object: 'api_key';
  id: string;
  app_id: string;
  kind: 'server' | 'client';
  name: string;
  created_at: string;
  fixed_by_environment: boolean;
}

export interface RotatedApiKey extends ApiKeyObject {
  app_token: string;
  replaces: string;
}

function fixedByEnvironment(deps: Deps, isDefaultProject: boolean, row: ApiKeyRow): boolean {
  if (!isDefaultProject) return false;
  const fixed = row.kind === 'server' ? deps.config.defaultProject.serverKey : deps.config.defaultProject.clientKey;
  return fixed !== null && fixed !== undefined && fixed.id === row.app_id;
}

function keyObject(deps: Deps, isDefaultProject: boolean, row: ApiKeyRow): ApiKeyObject {
  return {
    object: 'api_key',
    id: row.id,
    app_id: row.app_id,
    kind: row.kind,
    name: row.name,
    created_at: new Date(row.created_at).toISOString(),
    fixed_by_environment: fixedByEnvironment(deps, isDefaultProject, row),
  };
}

async function liveProject(db: Executor, projectId: string) {
  const project = await findProject(db, projectId);
  if (!project) throw errors.notFound('project', projectId);
  return project;
}

export async function listApiKeys(deps: Deps, projectId: string) {
  const project = await liveProject(deps.db, projectId);
  const data = (await listLiveApiKeys(deps.db, projectId)).map((row) => keyObject(deps, Boolean(project.is_default), row));
  return { object: 'list' as const, data_ref: 'data' as const, data, total: data.length };
}

/** Retires the key (by its id or its app id) and issues a new one of the same kind. */
export async function rotateApiKey(deps: Deps, actor: Omit<Actor, 'projectId'>, projectId: string, keyId: string): Promise<RotatedApiKey> {
  return inTransaction(deps, async (tx) => {
    const project = await liveProject(tx, projectId);
    await lockProjectRow(tx, projectId);
    const old = (await listLiveApiKeys(tx, projectId)).find((row) => row.id === keyId || row.app_id === keyId);
    if (!old) throw errors.notFound('api_key', keyId);
    const isDefault = Boolean(project.is_default);
    if (fixedByEnvironment(deps, isDefault, old)) {
      throw businessError('api_key_fixed_by_environment', 'The key is fixed by the environment', {
        details: `Key ${old.app_id} is set by the server's environment (${old.kind === 'server' ? 'PUNCHCARD_APP_ID/PUNCHCARD_APP_TOKEN' : 'PUNCHCARD_CLIENT_APP_ID/PUNCHCARD_CLIENT_TOKEN'}); change it there and restart`,
        resourceId: old.id,
        resourceType: 'api_key',
      });
    }
    const now = deps.clock.now().toISOString();
    if (!(await revokeApiKey(tx, projectId, old.id, now))) throw errors.notFound('api_key', keyId);
    const pair = await issueProjectKey(tx, deps, projectId, old.kind);
    const fresh = (await listLiveApiKeys(tx, projectId)).find((row) => row.app_id === pair.id);
    if (!fresh) throw new Error('new key vanished inside its own transaction');
    const object = keyObject(deps, isDefault, fresh);
    await appendEvents(tx, [
      makeEvent(deps, { ...actor, projectId }, { type: 'project.api_key_rotated', entityId: projectId, data: { api_key: object, replaces: old.app_id } }),
    ]);
    return { ...object, app_token: pair.secret, replaces: old.app_id };
  });
}
