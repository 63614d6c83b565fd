import type { Executor } from '../../store/db.ts';

// What each assignable object's area provides to the validation-rule assignment registry
// (./assignment-targets.ts): its own module, so the areas that provide a lookup and the registry that
// collects them do not import each other.

export interface AssignmentTarget {
  /** The id stored as `related_object_id` (`v_…`, `camp_…`, …). */
  id: string;
  summary: Record<string, unknown>;
}

export type TargetLookup = (db: Executor, projectId: string, reference: string) => Promise<AssignmentTarget | undefined>;
