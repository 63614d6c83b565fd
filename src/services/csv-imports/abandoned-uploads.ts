import { abandonedUploads } from '../../store/csv-imports.ts';
import type { Deps } from '../context.ts';
import { discardUpload } from './staged-rows.ts';

// Uploads whose process died while receiving them (./upload.ts marks an upload until it is enqueued or
// discarded): the worker's hourly purge drops them with their staged rows.

/** A mark older than this belongs to an upload whose process died; it is purged with its rows. */
export const ABANDONED_UPLOAD_MS = 24 * 3600_000;

/** Deletes uploads whose process died while receiving them, with their staged rows (worker housekeeping). */
export async function purgeAbandonedUploads(deps: Deps): Promise<number> {
  const before = new Date(deps.clock.now().getTime() - ABANDONED_UPLOAD_MS).toISOString();
  let purged = 0;
  for (;;) {
    const uploads = await abandonedUploads(deps.db, before, 100);
    for (const upload of uploads) await discardUpload(deps, upload.project_id, upload.id);
    purged += uploads.length;
    if (uploads.length < 100) return purged;
  }
}
