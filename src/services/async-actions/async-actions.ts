import type { ListAsyncActionsInput } from '../../api/async-actions.ts';
import { errors } from '../../domain/errors.ts';
import { queryInstant } from '../../domain/time/query-instant.ts';
import { findAsyncActionJob, listAsyncActionJobs, type JobRow } from '../../store/jobs.ts';
import { fromJson } from '../../store/json.ts';
import type { Actor, Deps } from '../context.ts';
import { isCsvImportKind } from '../csv-imports/kinds.ts';
import { csvImportResult } from '../csv-imports/run-import.ts';

// Jobs as the API shows them: async actions (platform reference 8). A job's kind is the action type.

export interface AsyncAction {
  id: string;
  type: string;
  status: JobRow['status'];
  operation_status?: 'SUCCESS' | 'FAILED' | 'UNKNOWN';
  created_at: string;
  updated_at: string;
  request_id: string | null;
  processing_time?: number;
  progress: number;
  result?: Record<string, unknown> | null;
  object: 'async_action';
}

function toAsyncAction(row: JobRow, withResult: boolean): AsyncAction {
  // Bulk and metadata updates record how the operation as a whole went next to their counts.
  const operationStatus = fromJson<{ operation_status?: AsyncAction['operation_status'] } | null>(row.result, null)?.operation_status;
  return {
    id: row.id,
    type: row.kind,
    status: row.status,
    ...(operationStatus ? { operation_status: operationStatus } : {}),
    created_at: row.created_at,
    updated_at: row.updated_at,
    request_id: row.request_id,
    ...(row.finished_at ? { processing_time: Math.max(0, Date.parse(row.finished_at) - Date.parse(row.created_at)) } : {}),
    progress: row.progress,
    ...(withResult ? { result: row.status === 'FAILED' ? { message: row.error ?? 'failed', ...fromJson(row.result, {}) } : fromJson(row.result, null) } : {}),
    object: 'async_action',
  };
}

export async function getAsyncAction(deps: Deps, actor: Actor, id: string): Promise<AsyncAction> {
  const row = await findAsyncActionJob(deps.db, actor.projectId, id);
  if (!row) throw errors.notFound('async_action', id);
  const action = toAsyncAction(row, true);
  // A CSV import keeps the rows it rejected in their own table (any number of them), not in the result.
  if (isCsvImportKind(row.kind)) return { ...action, result: await csvImportResult(deps.db, actor.projectId, row.id, row.kind, action.result ?? null) };
  return action;
}

/** Newest first; `end_date` pages back in time (actions scheduled before it). */
export async function listAsyncActions(deps: Deps, actor: Actor, input: ListAsyncActionsInput) {
  const limit = input.limit ?? 10;
  const before = input.end_date === undefined ? null : queryInstant(input.end_date);
  const rows = await listAsyncActionJobs(deps.db, actor.projectId, limit + 1, before);
  return {
    object: 'list' as const,
    data_ref: 'async_actions' as const,
    async_actions: rows.slice(0, limit).map((row) => toAsyncAction(row, false)),
    has_more: rows.length > limit,
  };
}
