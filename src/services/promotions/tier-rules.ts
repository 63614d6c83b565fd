import { errors } from '../../domain/errors.ts';
import type { Tx } from '../../store/db.ts';
import type { NewEvent } from '../../store/events.ts';
import { deleteTierAssignments } from '../../store/promotion-tiers.ts';
import * as rulesStore from '../../store/validation-rules.ts';
import { makeEvent, type Actor, type Deps } from '../context.ts';
import { EVENT_TARGET_MEMBERS } from '../validation-rules/assignment-targets.ts';
import { toAssignmentObject, toRuleObject } from '../validation-rules/validation-rules.ts';

// Validation rules named on a tier (`validation_rules: [ids]` or a `validation_rule_assignments` list)
// become assignments of the tier inside the tier's own transaction, each with the event the assignment
// endpoint would append (promotions reference 5.7).

export interface TierRuleInput {
  validation_rules?: readonly string[] | null | undefined;
  validation_rule_assignments?: { data?: ReadonlyArray<{ rule_id: string }> | undefined } | null | undefined;
}

/** The rule ids a tier body names, without repeats; undefined when it names none of the two members. */
export function ruleIdsOf(input: TierRuleInput): string[] | undefined {
  if (input.validation_rules === undefined && input.validation_rule_assignments === undefined) return undefined;
  const ids = [...(input.validation_rules ?? []), ...(input.validation_rule_assignments?.data ?? []).map((a) => a.rule_id)];
  return [...new Set(ids)];
}

function assignmentEvent(
  deps: Deps,
  actor: Actor,
  type: 'created' | 'deleted',
  rule: rulesStore.ValidationRuleRow,
  count: number,
  assignment: rulesStore.AssignmentRow,
  tierSummary: Record<string, unknown>,
): NewEvent {
  const members = Object.fromEntries(EVENT_TARGET_MEMBERS.map((member) => [member, member === 'promotion_tier' ? tierSummary : null]));
  return makeEvent(deps, actor, {
    type: `business_validation_rule.assignment.${type}`,
    entityId: assignment.id,
    data: { rule: toRuleObject(rule, count), assignment: toAssignmentObject(assignment), ...members },
  });
}

/**
 * Checks that every rule exists, share-locking it on PostgreSQL (a rule deletion then waits for this
 * transaction and removes the new assignments too). Unknown rule: 404.
 */
export async function lockRules(tx: Tx, projectId: string, ruleIds: readonly string[]): Promise<Map<string, rulesStore.ValidationRuleRow>> {
  const rules = new Map<string, rulesStore.ValidationRuleRow>();
  for (const id of ruleIds) {
    const rule = await rulesStore.findRule(tx, projectId, id, 'share');
    if (!rule) throw errors.notFound('validation_rules', id);
    rules.set(id, rule);
  }
  return rules;
}

/** Assigns the (already locked) rules to a tier; a rule assigned already is left as it is. */
export async function assignRulesToTier(
  tx: Tx,
  deps: Deps,
  actor: Actor,
  rules: ReadonlyMap<string, rulesStore.ValidationRuleRow>,
  tierId: string,
  tierSummary: Record<string, unknown>,
): Promise<NewEvent[]> {
  const events: NewEvent[] = [];
  for (const rule of rules.values()) {
    const row = {
      id: deps.ids.next('asgm'),
      project_id: actor.projectId,
      rule_id: rule.id,
      related_object_type: 'promotion_tier',
      related_object_id: tierId,
      created_at: deps.clock.now().toISOString(),
    };
    if (!(await rulesStore.insertAssignmentIfAbsent(tx, row))) continue;
    const counts = await rulesStore.assignmentCounts(tx, actor.projectId, [rule.id]);
    events.push(assignmentEvent(deps, actor, 'created', rule, counts.get(rule.id) ?? 0, row, tierSummary));
  }
  return events;
}

/** Removes assignments of a tier (those of `ruleIds`, or all); answers their events. */
export async function unassignRulesFromTier(
  tx: Tx,
  deps: Deps,
  actor: Actor,
  tierId: string,
  tierSummary: Record<string, unknown>,
  ruleIds?: readonly string[],
): Promise<NewEvent[]> {
  const removed = await deleteTierAssignments(tx, actor.projectId, tierId, ruleIds);
  if (removed.length === 0) return [];
  const counts = await rulesStore.assignmentCounts(
    tx,
    actor.projectId,
    removed.map((r) => r.rule_id),
  );
  const events: NewEvent[] = [];
  for (const assignment of removed) {
    const rule = await rulesStore.findRule(tx, actor.projectId, assignment.rule_id);
    if (!rule) continue;
    events.push(assignmentEvent(deps, actor, 'deleted', rule, counts.get(rule.id) ?? 0, assignment, tierSummary));
  }
  return events;
}
