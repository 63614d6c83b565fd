import { ASYNC_ACTION_TYPES, type ListAsyncActionsInput } from '../../api/async-actions.ts';
import { errors } from '../../domain/errors.ts';
import { queryInstant } from '../../domain/time/query-instant.ts';
import { findAsyncActionJob, listAsyncActionJobs, type JobRow } from '../../store/jobs.ts';
import { fromJson } from '../../store/json.ts';
import type { Actor, Deps } from '../context.ts';
import { isCsvImportKind } from '../csv-imports/kinds.ts';
import { csvImportResult } from '../csv-imports/run-import.ts';

// Jobs as the API shows them: async actions. A job's kind is the action type; only
// the kinds of ASYNC_ACTION_TYPES are shown, other jobs are internal work (an unknown id to the API).

export interface AsyncAction {
  id: string;
  type: (typeof ASYNC_ACTION_TYPES)[number];
  status: JobRow['status'];
  operation_status?: 'SUCCESS' | 'FAILED' | 'UNKNOWN';
  created_at: string;
  updated_at: string;
  request_id: string | null;
  processing_time?: number;
  progress: number;
  /** Left out while the action has recorded nothing (the vendor's result is an object, never null). */
  result?: Record<string, unknown>;
  object: 'async_action';
}

/**
 * How the operation as a whole went. Bulk and metadata updates record it next to their counts; a CSV
 * import is judged the same way (SUCCESS when no row failed) from its status and counts, UNKNOWN until
 * it ends.
 */
function operationStatusOf(row: JobRow, stored: Record<string, unknown> | null): AsyncAction['operation_status'] {
  const recorded = stored?.operation_status;
  if (recorded === 'SUCCESS' || recorded === 'FAILED' || recorded === 'UNKNOWN') return recorded;
  if (!isCsvImportKind(row.kind)) return undefined;
  if (row.status === 'FAILED') return 'FAILED';
  if (row.status !== 'DONE') return 'UNKNOWN';
  return stored?.failed_count === 0 ? 'SUCCESS' : 'FAILED';
}

function toAsyncAction(row: JobRow, withResult: boolean): AsyncAction {
  const stored = fromJson<Record<string, unknown> | null>(row.result, null);
  const operationStatus = operationStatusOf(row, stored);
  const result = row.status === 'FAILED' ? { message: row.error ?? 'failed', ...stored } : stored;
  return {
    id: row.id,
    type: row.kind as AsyncAction['type'],
    status: row.status,
    ...(operationStatus ? { operation_status: operationStatus } : {}),
    created_at: row.created_at,
    updated_at: row.updated_at,
    request_id: row.request_id,
    ...(row.finished_at ? { processing_time: Math.max(0, Date.parse(row.finished_at) - Date.parse(row.created_at)) } : {}),
    progress: row.progress,
    ...(withResult && result !== null ? { result } : {}),
    object: 'async_action',
  };
}

export async function getAsyncAction(deps: Deps, actor: Actor, id: string): Promise<AsyncAction> {
  const row = await findAsyncActionJob(deps.db, actor.projectId, id, ASYNC_ACTION_TYPES);
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
  const rows = await listAsyncActionJobs(deps.db, actor.projectId, ASYNC_ACTION_TYPES, limit + 1, before);
  return {
    object: 'list' as const,
    data_ref: 'async_actions' as const,
    async_actions: rows.slice(0, limit).map((row) => toAsyncAction(row, false)),
    has_more: rows.length > limit,
  };
}
