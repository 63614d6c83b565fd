import type { Insertable, Selectable, Updateable } from 'kysely';
import { isPostgres, type Executor } from './db.ts';
import { fromJson } from './json.ts';
import { prepared } from './prepared.ts';
import type { ProjectsTable } from './schema.ts';

export type ProjectRow = Selectable<ProjectsTable>;

export interface NotificationSetting {
  email: boolean;
  in_app: boolean;
  emails: string[];
}

export interface UsageNotification {
  enabled: boolean;
  value: number;
  in_app: boolean;
  emails: string[];
}

export interface RateLimit {
  value: number;
  duration: string;
}

/** The project object of the management API (platform reference 1.6). */
export interface ProjectObject {
  id: string;
  name: string;
  description: string;
  timezone: string;
  locale: string | null;
  /** The server's default project (Punchcard extension): it cannot be deleted. */
  is_default: boolean;
  currency: string;
  dial_code: string | null;
  webhook_version: string;
  client_trusted_domains: string[];
  client_redeem_enabled: boolean;
  client_publish_enabled: boolean;
  client_list_vouchers_enabled: boolean;
  client_create_customer_enabled: boolean;
  client_loyalty_events_enabled: boolean;
  client_set_voucher_expiration_date_enabled: boolean;
  webhooks_callout_notifications: Record<string, NotificationSetting>;
  api_usage_notifications: Record<string, UsageNotification>;
  cluster_id: string;
  case_sensitive_codes: boolean;
  api_version: string;
  is_sandbox: boolean;
  webhook_token: string;
  default_code_config?: { charset: string | null };
  limits?: { api_calls?: RateLimit[]; bulk_api_calls?: RateLimit[] };
  created_at: string;
  updated_at: string | null;
  object: 'project';
}

export function toProjectObject(row: ProjectRow): ProjectObject {
  const codeConfig = fromJson<{ charset: string | null } | null>(row.default_code_config, null);
  const limits = fromJson<ProjectObject['limits'] | null>(row.limits, null);
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    timezone: row.timezone,
    locale: row.locale,
    is_default: Boolean(row.is_default),
    currency: row.currency,
    dial_code: row.dial_code,
    webhook_version: row.webhook_version,
    client_trusted_domains: fromJson(row.client_trusted_domains, []),
    client_redeem_enabled: Boolean(row.client_redeem_enabled),
    client_publish_enabled: Boolean(row.client_publish_enabled),
    client_list_vouchers_enabled: Boolean(row.client_list_vouchers_enabled),
    client_create_customer_enabled: Boolean(row.client_create_customer_enabled),
    client_loyalty_events_enabled: Boolean(row.client_loyalty_events_enabled),
    client_set_voucher_expiration_date_enabled: Boolean(row.client_set_voucher_expiration_date_enabled),
    webhooks_callout_notifications: fromJson(row.webhooks_callout_notifications, {}),
    api_usage_notifications: fromJson(row.api_usage_notifications, {}),
    cluster_id: row.cluster_id,
    case_sensitive_codes: Boolean(row.case_sensitive_codes),
    api_version: row.api_version,
    is_sandbox: Boolean(row.is_sandbox),
    webhook_token: row.webhook_token,
    ...(codeConfig ? { default_code_config: codeConfig } : {}),
    ...(limits ? { limits } : {}),
    created_at: row.created_at,
    updated_at: row.updated_at,
    object: 'project',
  };
}

export async function insertProject(db: Executor, row: Insertable<ProjectsTable>): Promise<void> {
  await db.insertInto('projects').values(row).execute();
}

const liveProject = prepared((db, p: { id: string }) => db.selectFrom('projects').selectAll().where('id', '=', p.id).where('deleted_at', 'is', null));

export async function findProject(db: Executor, id: string): Promise<ProjectRow | undefined> {
  return liveProject.first(db, { id });
}

export async function findDefaultProject(db: Executor): Promise<ProjectRow | undefined> {
  return db
    .selectFrom('projects')
    .selectAll()
    .where('is_default', '=', true)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

export async function listProjects(db: Executor): Promise<ProjectRow[]> {
  return db
    .selectFrom('projects')
    .selectAll()
    .where('deleted_at', 'is', null)
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .execute();
}

export async function updateProject(db: Executor, id: string, patch: Updateable<ProjectsTable>): Promise<boolean> {
  const result = await db
    .updateTable('projects')
    .set(patch)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Projects are retired, not erased: their keys stop working at once and their rows stay for audit.
 * `is_default` is cleared so a new default can be made.
 */
export async function retireProject(db: Executor, id: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('projects')
    .set({ deleted_at: at, is_default: false })
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Serialises writers of one project-wide limit (e.g. live OAuth tokens) on PostgreSQL; SQLite write
 * transactions are exclusive already.
 */
export async function lockProjectRow(db: Executor, id: string): Promise<void> {
  if (!isPostgres(db)) return;
  await db.selectFrom('projects').select('id').where('id', '=', id).forUpdate().execute();
}

/**
 * Every live project's id, their rows locked in id order on PostgreSQL (SQLite write transactions are
 * exclusive already): for a rule about the set of projects, such as "one stays".
 */
export async function lockLiveProjects(db: Executor): Promise<string[]> {
  let query = db.selectFrom('projects').select('id').where('deleted_at', 'is', null).orderBy('id', 'asc');
  if (isPostgres(db)) query = query.forUpdate();
  return (await query.execute()).map((row) => row.id);
}

// Whether voucher codes are case-sensitive is fixed when a project is created, so it is cached for the
// life of the process.
const caseSensitivity = new Map<string, boolean>();

const caseSensitiveCodesOf = prepared((db, p: { projectId: string }) => db.selectFrom('projects').select('case_sensitive_codes').where('id', '=', p.projectId));

export async function projectCodesAreCaseSensitive(db: Executor, projectId: string): Promise<boolean> {
  const cached = caseSensitivity.get(projectId);
  if (cached !== undefined) return cached;
  const row = await caseSensitiveCodesOf.first(db, { projectId });
  const value = row ? Boolean(row.case_sensitive_codes) : true;
  if (row) caseSensitivity.set(projectId, value);
  return value;
}
