import type { CreateProjectInput, UpdateProjectInput } from '../../api/projects.ts';
import { businessError, errors } from '../../domain/errors.ts';
import { newSecret } from '../../lib/secrets.ts';
import { hashSecret } from '../../lib/secrets.ts';
import { appendEvents } from '../../store/events.ts';
import { toJson } from '../../store/json.ts';
import { insertApiKey, revokeApiKeys } from '../../store/keys.ts';
import * as store from '../../store/projects.ts';
import type { ProjectObject } from '../../store/projects.ts';
import type { Tx } from '../../store/db.ts';
import { inTransaction, makeEvent, type Actor, type Deps } from '../context.ts';
import { assignCreator, assignInitialUsers, type Caller } from '../users/project-users.ts';

export interface IssuedKeyPair {
  app_id: string;
  app_token: string;
}

export type CreatedProject = ProjectObject & { server_side_key: IssuedKeyPair; client_side_key: IssuedKeyPair };

const DEFAULT_CALLOUTS = {
  distributions: { email: false, in_app: false, emails: [] },
  webhooks: { email: false, in_app: false, emails: [] },
};

const USAGE_KINDS = ['messages', 'api_calls', 'bulk_api_calls', 'webhook_calls', 'cycle_calls'] as const;

function fillCallouts(input: CreateProjectInput['webhooks_callout_notifications']) {
  const out: Record<string, { email: boolean; in_app: boolean; emails: string[] }> = {};
  for (const [kind, base] of Object.entries(DEFAULT_CALLOUTS)) {
    const given = input?.[kind as keyof typeof DEFAULT_CALLOUTS];
    out[kind] = { email: given?.email ?? base.email, in_app: given?.in_app ?? base.in_app, emails: given?.emails ?? base.emails };
  }
  return out;
}

function fillUsage(input: CreateProjectInput['api_usage_notifications']) {
  const out: Record<string, { enabled: boolean; value: number; in_app: boolean; emails: string[] }> = {};
  for (const kind of USAGE_KINDS) {
    const given = input?.[kind];
    if (!given) continue;
    out[kind] = { enabled: given.enabled ?? false, value: given.value ?? 80, in_app: given.in_app ?? false, emails: given.emails ?? [] };
  }
  return out;
}

export function assertTimezone(timezone: string): void {
  if (/^GMT[+-]\d{2}:\d{2}$/.test(timezone)) return;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
  } catch {
    throw errors.invalidPayload(`Property .timezone must be an IANA time zone name or GMT±HH:MM, got '${timezone}'`);
  }
}

/** The canonical form of a BCP 47 language tag Intl knows (`en-gb` → `en-GB`), or a refusal naming it. */
export function canonicalLocale(locale: string): string {
  try {
    const [canonical] = Intl.getCanonicalLocales(locale);
    if (canonical !== undefined && Intl.DateTimeFormat.supportedLocalesOf([canonical]).length > 0) return canonical;
  } catch {
    // not a well-formed language tag: refused below
  }
  throw errors.invalidPayload(`Property .locale must be a language tag such as en-GB or de-DE, got '${locale}'`);
}

export function assertOrigins(origins: readonly string[]): string[] {
  return origins.map((origin) => {
    if (origin === '*') return origin;
    let parsed: URL;
    try {
      parsed = new URL(origin);
    } catch {
      throw errors.invalidPayload(`Property .client_trusted_domains has '${origin}', which is not an origin such as https://shop.example.com`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw errors.invalidPayload(`Property .client_trusted_domains has '${origin}', which is not an http(s) origin`);
    }
    return parsed.origin;
  });
}

export interface NewProjectOptions {
  isDefault?: boolean;
  /** Fixed keys (from the environment) instead of generated ones. */
  serverKey?: { id: string; secret: string } | null;
  clientKey?: { id: string; secret: string } | null;
  /** The console user creating the project (the organisation's owner): they become its ADMIN. */
  creator?: { userId: string; login: string };
}

/**
 * Creates a project with one server key and one client key (the secrets are returned once) and the
 * existing users it starts with.
 */
export async function createProject(
  deps: Deps,
  actor: Omit<Actor, 'projectId'>,
  input: CreateProjectInput,
  options: NewProjectOptions = {},
): Promise<CreatedProject> {
  return inTransaction(deps, (tx) => createProjectIn(tx, deps, actor, input, options));
}

/** createProject inside the caller's transaction (first-start setup creates everything in one). */
export async function createProjectIn(
  tx: Tx,
  deps: Deps,
  actor: Omit<Actor, 'projectId'>,
  input: CreateProjectInput,
  options: NewProjectOptions = {},
): Promise<CreatedProject> {
  assertTimezone(input.timezone);
  const origins = assertOrigins(input.client_trusted_domains ?? []);
  const now = deps.clock.now().toISOString();
  const id = deps.ids.next('proj');
  // Secure by default: every client-side action stays off until the project enables it.
  const flag = (value: boolean | undefined) => value ?? false;
  const serverKey = options.serverKey ?? { id: deps.ids.next('app'), secret: newSecret() };
  const clientKey = options.clientKey ?? { id: deps.ids.next('client'), secret: newSecret() };

  await store.insertProject(tx, {
    id,
    name: input.name,
    description: input.description ?? '',
    timezone: input.timezone,
    locale: input.locale === undefined || input.locale === null ? null : canonicalLocale(input.locale),
    currency: input.currency,
    dial_code: input.dial_code ?? null,
    webhook_version: input.webhook_version ?? 'v2024-01-01',
    api_version: input.api_version ?? 'v2018-08-01',
    cluster_id: input.cluster_id ?? 'local',
    case_sensitive_codes: input.case_sensitive_codes,
    is_sandbox: false,
    is_default: options.isDefault ?? false,
    client_trusted_domains: toJson(origins),
    client_redeem_enabled: flag(input.client_redeem_enabled),
    client_publish_enabled: flag(input.client_publish_enabled),
    client_list_vouchers_enabled: flag(input.client_list_vouchers_enabled),
    client_create_customer_enabled: flag(input.client_create_customer_enabled),
    client_loyalty_events_enabled: flag(input.client_loyalty_events_enabled),
    client_set_voucher_expiration_date_enabled: flag(input.client_set_voucher_expiration_date_enabled),
    webhooks_callout_notifications: toJson(fillCallouts(input.webhooks_callout_notifications)),
    api_usage_notifications: toJson(fillUsage(input.api_usage_notifications)),
    default_code_config: null,
    limits: input.limits ? toJson(input.limits) : null,
    webhook_token: newSecret(40),
    created_at: now,
    updated_at: null,
    deleted_at: null,
  });
  for (const [kind, pair] of [['server', serverKey], ['client', clientKey]] as const) {
    await insertApiKey(tx, {
      id: deps.ids.next('key'),
      project_id: id,
      kind,
      app_id: pair.id,
      secret_hash: hashSecret(deps.pepper, pair.secret),
      name: `${kind === 'server' ? 'Server-side' : 'Client-side'} key`,
      created_at: now,
      revoked_at: null,
    });
  }
  const row = await store.findProject(tx, id);
  if (!row) throw new Error('project vanished inside its own transaction');
  await appendEvents(tx, [
    makeEvent(deps, { ...actor, projectId: id }, { type: 'project.created', entityId: id, data: { project: store.toProjectObject(row) } }),
  ]);
  // The vendor's `users`: existing users join with their roles, or the project is not created at all.
  if (options.creator) await assignCreator(tx, deps, actor, id, options.creator, input.users ?? []);
  await assignInitialUsers(tx, deps, actor, id, input.users ?? []);
  return {
    ...store.toProjectObject(row),
    server_side_key: { app_id: serverKey.id, app_token: serverKey.secret },
    client_side_key: { app_id: clientKey.id, app_token: clientKey.secret },
  };
}

export async function getProject(deps: Deps, id: string): Promise<ProjectObject> {
  const row = await store.findProject(deps.db, id);
  if (!row) throw errors.notFound('project', id);
  return store.toProjectObject(row);
}

export async function listProjects(deps: Deps): Promise<ProjectObject[]> {
  return (await store.listProjects(deps.db)).map(store.toProjectObject);
}

export async function updateProject(
  deps: Deps,
  actor: Omit<Actor, 'projectId'>,
  id: string,
  input: UpdateProjectInput,
): Promise<ProjectObject> {
  if (input.timezone !== undefined) assertTimezone(input.timezone);
  const origins = input.client_trusted_domains === undefined ? undefined : assertOrigins(input.client_trusted_domains);
  return inTransaction(deps, async (tx) => {
    const current = await store.findProject(tx, id);
    if (!current) throw errors.notFound('project', id);
    const existing = store.toProjectObject(current);
    const now = deps.clock.now().toISOString();
    const patch = {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.timezone !== undefined ? { timezone: input.timezone } : {}),
      ...(input.locale !== undefined ? { locale: input.locale === null ? null : canonicalLocale(input.locale) } : {}),
      ...(input.currency !== undefined ? { currency: input.currency } : {}),
      ...(input.dial_code !== undefined ? { dial_code: input.dial_code } : {}),
      ...(input.webhook_version !== undefined ? { webhook_version: input.webhook_version } : {}),
      ...(origins !== undefined ? { client_trusted_domains: toJson(origins) } : {}),
      ...(input.client_redeem_enabled !== undefined ? { client_redeem_enabled: input.client_redeem_enabled } : {}),
      ...(input.client_publish_enabled !== undefined ? { client_publish_enabled: input.client_publish_enabled } : {}),
      ...(input.client_list_vouchers_enabled !== undefined ? { client_list_vouchers_enabled: input.client_list_vouchers_enabled } : {}),
      ...(input.client_create_customer_enabled !== undefined
        ? { client_create_customer_enabled: input.client_create_customer_enabled }
        : {}),
      ...(input.client_loyalty_events_enabled !== undefined
        ? { client_loyalty_events_enabled: input.client_loyalty_events_enabled }
        : {}),
      ...(input.client_set_voucher_expiration_date_enabled !== undefined
        ? { client_set_voucher_expiration_date_enabled: input.client_set_voucher_expiration_date_enabled }
        : {}),
      ...(input.webhooks_callout_notifications !== undefined
        ? {
            webhooks_callout_notifications: toJson(
              fillCallouts({ ...existing.webhooks_callout_notifications, ...input.webhooks_callout_notifications }),
            ),
          }
        : {}),
      ...(input.api_usage_notifications !== undefined
        ? { api_usage_notifications: toJson(fillUsage({ ...existing.api_usage_notifications, ...input.api_usage_notifications })) }
        : {}),
      ...(input.default_code_config !== undefined ? { default_code_config: toJson(input.default_code_config) } : {}),
      ...(input.limits !== undefined ? { limits: input.limits === null ? null : toJson(input.limits) } : {}),
      updated_at: now,
    };
    await store.updateProject(tx, id, patch);
    const updated = await store.findProject(tx, id);
    if (!updated) throw errors.notFound('project', id);
    const object = store.toProjectObject(updated);
    await appendEvents(tx, [makeEvent(deps, { ...actor, projectId: id }, { type: 'project.updated', entityId: id, data: { project: object } })]);
    return object;
  });
}

/**
 * Retires a project: its keys and tokens stop working at once, and so do the console sessions working in
 * it (a session's project must be live). Refused for the default project, the last live project, and — for
 * a console session — the project the session works in: the caller would saw off the branch it sits on.
 */
export async function deleteProject(deps: Deps, actor: Omit<Actor, 'projectId'>, id: string, caller: Caller = { kind: 'management' }): Promise<string[]> {
  return inTransaction(deps, async (tx) => {
    // Every live project's row, in one order: two deletions at once cannot both see "another one is left".
    const live = await store.lockLiveProjects(tx);
    const current = await store.findProject(tx, id);
    if (!current) throw errors.notFound('project', id);
    if (current.is_default) {
      throw businessError('resource_protected', 'Resource is protected', {
        details: `Resource project with id ${id} is protected and cannot be deleted: it is the server's default project`,
        resourceId: id,
        resourceType: 'project',
      });
    }
    if (caller.kind === 'user' && caller.projectId === id) {
      throw businessError('resource_in_use', 'Resource in use', {
        details: `Project ${id} is the one your console session works in; switch to another project to delete it`,
        resourceId: id,
        resourceType: 'project',
      });
    }
    if (live.length <= 1) {
      throw businessError('last_project', 'The organisation keeps at least one project', {
        details: `Project ${id} is the last live project and cannot be deleted; create another one first`,
        resourceId: id,
        resourceType: 'project',
      });
    }
    const now = deps.clock.now().toISOString();
    await store.retireProject(tx, id, now);
    const revoked = await revokeApiKeys(tx, id, now);
    await appendEvents(tx, [makeEvent(deps, { ...actor, projectId: id }, { type: 'project.deleted', entityId: id, data: { id, deleted_at: now } })]);
    return revoked;
  });
}
