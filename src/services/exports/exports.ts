import { businessError, errors } from '../../domain/errors.ts';
import { exportFilterToJson, ExportFilterError, parseExportFilter, type ParsedExportFilter } from '../../domain/exports/filters.ts';
import { EXPORT_OBJECTS, resolveFields, type ExportedObject } from '../../domain/exports/objects.ts';
import type { CreateExportInput, ExportObjectType, ListExportsInput, ScopedExportInput } from '../../api/exports.ts';
import { appendEvents } from '../../store/events.ts';
import { campaignExists, voucherExists } from '../../store/export-sources.ts';
import { deleteExport as deleteExportRow, findExport, insertExport, listExports as listExportRows, readExportChunk, type ExportRow } from '../../store/exports.ts';
import { enqueueJob } from '../../store/jobs.ts';
import { fromJson, toJson } from '../../store/json.ts';
import { findProject } from '../../store/projects.ts';
import { inTransaction, listing, makeEvent, type Actor, type Deps } from '../context.ts';
import { downloadToken, downloadTokenMatches, projectOfDownloadToken } from './download-token.ts';
import { readableRows } from '../../lib/unreadable-rows.ts';

// Exports (platform reference 7; DECISIONS 25): scheduling one (the job writes the file, see
// run-export.ts), reading, listing and deleting them, and serving the file to a download link.

export const EXPORT_JOB = 'export.generate';

export interface ExportJobPayload {
  export_id: string;
}

/** The parameters as stored and echoed: defaults filled in, the filter with an explicit junction. */
export interface ExportParameters {
  order: string;
  fields: string[];
  filters: Record<string, unknown>;
  campaign_id?: string;
  voucher_id?: string;
}

/** The objects an export can be limited to one campaign's or one voucher's records of (a hard scope, ANDed with the filter). */
const SCOPES: Record<'campaign_id' | 'voucher_id', readonly ExportedObject[]> = {
  campaign_id: ['voucher', 'voucher_transactions', 'points_expiration'],
  voucher_id: ['voucher_transactions'],
};

/** Checks a request's parameters for the object; throws the vendor's 400s. */
export function checkParameters(object: ExportedObject, input: CreateExportInput['parameters']): { parameters: ExportParameters; filter: ParsedExportFilter } {
  const spec = EXPORT_OBJECTS[object];
  const fields = resolveFields(object, input?.fields);
  if ('problem' in fields) {
    throw fields.problem.kind === 'unsupported'
      ? businessError('invalid_export_fields', 'Invalid Export', { details: fields.problem.details })
      : errors.invalidPayload(fields.problem.details);
  }
  const order = input?.order ?? spec.defaultOrder;
  if (!spec.orders.includes(order)) {
    throw errors.invalidPayload(`Property .parameters.order should be equal to one of the allowed values [ ${spec.orders.join(', ')} ]`);
  }
  let filter: ParsedExportFilter;
  try {
    filter = parseExportFilter(object, input?.filters);
  } catch (error) {
    if (error instanceof ExportFilterError) throw errors.invalidPayload(error.details);
    throw error;
  }
  const parameters: ExportParameters = { order, fields: fields.fields, filters: exportFilterToJson(filter, input?.filters) };
  for (const [scope, objects] of Object.entries(SCOPES) as [keyof typeof SCOPES, readonly ExportedObject[]][]) {
    const value = input?.[scope] ?? undefined;
    if (value === undefined) continue;
    if (!objects.includes(object)) throw errors.invalidPayload(`Property .parameters.${scope} applies to ${objects.join(', ')} exports only, not ${object}`);
    parameters[scope] = value;
  }
  return { parameters, filter };
}

export function exportParametersOf(row: ExportRow): ExportParameters {
  return fromJson<ExportParameters>(row.parameters, { order: '', fields: [], filters: {} });
}

function downloadUrl(deps: Deps, row: ExportRow, expiresAt: string): string {
  const token = downloadToken(deps.pepper, row.project_id, row.id, expiresAt);
  return `${deps.config.publicUrl.replace(/\/+$/, '')}/v1/exports/${encodeURIComponent(row.id)}?token=${encodeURIComponent(token)}`;
}

/** The export object (platform reference 7.5); `withUrl: false` leaves the download link out (event payloads). */
export function renderExport(deps: Deps, row: ExportRow, options: { withUrl: boolean } = { withUrl: true }): ExportObjectType {
  let result: ExportObjectType['result'] = null;
  if (row.status === 'DONE' && row.token_expires_at !== null) {
    result = {
      url: options.withUrl ? downloadUrl(deps, row, row.token_expires_at) : null,
      url_expires_at: row.token_expires_at,
      row_count: Number(row.row_count),
    };
  } else if (row.status === 'ERROR') {
    result = { url: null, message: row.error ?? 'The export failed' };
  }
  return {
    id: row.id,
    object: 'export',
    created_at: row.created_at,
    status: row.status,
    channel: row.channel,
    exported_object: row.exported_object as ExportedObject,
    parameters: exportParametersOf(row),
    result,
    user_id: row.user_id,
  };
}

export async function createExport(deps: Deps, actor: Actor, input: CreateExportInput): Promise<ExportObjectType> {
  const object = input.exported_object;
  const { parameters } = checkParameters(object, input.parameters);
  const now = deps.clock.now().toISOString();
  const id = deps.ids.next('exp');
  const jobId = deps.ids.next('job');
  const row = await inTransaction(deps, async (tx) => {
    if (parameters.campaign_id !== undefined && !(await campaignExists(tx, actor.projectId, parameters.campaign_id))) {
      throw errors.notFound('campaign', parameters.campaign_id);
    }
    if (parameters.voucher_id !== undefined && !(await voucherExists(tx, actor.projectId, parameters.voucher_id))) {
      throw errors.notFound('voucher', parameters.voucher_id);
    }
    await insertExport(tx, {
      id,
      project_id: actor.projectId,
      exported_object: object,
      status: 'SCHEDULED',
      // Exports made through the API; the vendor's WEBSITE channel (with user_id) is its dashboard.
      channel: 'API',
      user_id: null,
      parameters: toJson(parameters),
      job_id: jobId,
      cursor: null,
      error: null,
      token_hash: null,
      token_expires_at: null,
      created_at: now,
      updated_at: now,
      started_at: null,
      finished_at: null,
    });
    const payload: ExportJobPayload = { export_id: id };
    await enqueueJob(tx, { id: jobId, projectId: actor.projectId, kind: EXPORT_JOB, payload, requestId: actor.requestId, now });
    const created = await findExport(tx, actor.projectId, id);
    if (!created) throw new Error('export vanished inside its own transaction');
    await appendEvents(tx, [makeEvent(deps, actor, { type: 'export.created', entityId: id, data: { export: renderExport(deps, created, { withUrl: false }) } })]);
    return created;
  });
  return renderExport(deps, row);
}

/**
 * The routes that export one area's records (`POST /v1/orders/export`, a campaign's or a card's
 * transactions, a program's points buckets): an export of `object` whose campaign or voucher scope comes
 * from the path, whatever the parameters name.
 */
export async function createScopedExport(
  deps: Deps,
  actor: Actor,
  object: ExportedObject,
  input: ScopedExportInput,
  scope: { campaign_id?: string; voucher_id?: string },
): Promise<ExportObjectType> {
  return createExport(deps, actor, { exported_object: object, parameters: { ...(input.parameters ?? {}), ...scope } });
}

export async function getExport(deps: Deps, actor: Actor, id: string): Promise<ExportObjectType> {
  const row = await findExport(deps.db, actor.projectId, id);
  if (!row) throw errors.notFound('export', id);
  return renderExport(deps, row);
}

const LIST_ORDERS = {
  created_at: { sort: 'created_at', descending: false },
  '-created_at': { sort: 'created_at', descending: true },
  status: { sort: 'status', descending: false },
  '-status': { sort: 'status', descending: true },
} as const;

export async function listExports(deps: Deps, actor: Actor, query: ListExportsInput) {
  const limit = query.limit ?? 10;
  const page = query.page ?? 1;
  const { sort, descending } = LIST_ORDERS[query.order ?? '-created_at'];
  const result = await listExportRows(deps.db, { projectId: actor.projectId, limit, offset: (page - 1) * limit, sort, descending });
  return { object: 'list' as const, data_ref: 'exports' as const, exports: await readableRows(listing(deps, actor, 'export'), result.rows, (some) => some.map((row) => renderExport(deps, row))), total: result.total };
}

/** Deletes the export and its file. A job still running for it finds it gone and stops. */
export async function deleteExport(deps: Deps, actor: Actor, id: string): Promise<void> {
  await inTransaction(deps, async (tx) => {
    const row = await findExport(tx, actor.projectId, id);
    if (!row || !(await deleteExportRow(tx, actor.projectId, id))) throw errors.notFound('export', id);
    await appendEvents(tx, [makeEvent(deps, actor, { type: 'export.deleted', entityId: id, data: { export: renderExport(deps, row, { withUrl: false }) } })]);
  });
}

export interface ExportDownload {
  filename: string;
  bytes: number;
  /** The file, one stored chunk at a time. */
  chunks: AsyncIterable<string>;
}

/**
 * The file behind a download link. The token names the export's project and must match the export's
 * stored hash and be unexpired; any mismatch is the same 401, so a link reveals nothing about other
 * exports. When the caller also sent API keys (as the vendor's SDK does), the token must belong to
 * their project.
 */
export async function openDownload(deps: Deps, input: { exportId: string; token: string; callerProjectId: string | null }): Promise<ExportDownload> {
  const invalid = () => errors.unauthorized('The download token is not valid for this export');
  const projectId = projectOfDownloadToken(input.token);
  if (projectId === null) throw invalid();
  if (input.callerProjectId !== null && input.callerProjectId !== projectId) throw invalid();
  // A deleted project's download links die with it, like its keys.
  if (!(await findProject(deps.db, projectId))) throw invalid();
  const row = await findExport(deps.db, projectId, input.exportId);
  if (!row || row.status !== 'DONE' || row.token_hash === null || row.token_expires_at === null) throw invalid();
  if (!downloadTokenMatches(deps.pepper, input.token, row.token_hash)) throw invalid();
  if (deps.clock.now().toISOString() >= row.token_expires_at) throw errors.unauthorized('The download token has expired; create a new export');
  const chunkCount = Number(row.chunk_count);
  const exportId = row.id;
  const owner = row.project_id;
  async function* chunks(): AsyncGenerator<string> {
    for (let seq = 0; seq < chunkCount; seq++) {
      const data = await readExportChunk(deps.db, owner, exportId, seq);
      // The export was deleted while its file was being sent: end the response as incomplete.
      if (data === undefined) throw new Error(`export ${exportId} lost chunk ${seq} during its download`);
      yield data;
    }
  }
  return { filename: `${row.id}.csv`, bytes: Number(row.byte_count), chunks: chunks() };
}
