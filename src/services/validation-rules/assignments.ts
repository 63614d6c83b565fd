import { domainError, errors } from '../../domain/errors.ts';
import type { Tx } from '../../store/db.ts';
import type { CreateAssignmentInput, ListAllAssignmentsInput, ListRuleAssignmentsInput } from '../../api/validation-rules.ts';
import { appendEvents } from '../../store/events.ts';
import * as store from '../../store/validation-rules.ts';
import { inTransaction, makeEvent, type Actor, type Deps } from '../context.ts';
import { EVENT_TARGET_MEMBERS, resolveAssignmentTarget, type AssignmentObjectType } from './assignment-targets.ts';
import { toAssignmentObject, toRuleObject, type AssignmentObject } from './validation-rules.ts';

// Assignments of validation rules to vouchers, campaigns and other redeemables (promotions reference
// 5.7; seed 2.10, 4.9). One rule is assigned to one object at most once (unique index → 409).

const SHORTHANDS = ['voucher', 'campaign', 'promotion_tier'] as const;

/** What the body names: `related_object_type` + `related_object_id`, or one shorthand key the SDK sends. */
function targetOf(input: CreateAssignmentInput): { type: AssignmentObjectType; reference: string } {
  const shorthands = SHORTHANDS.filter((key) => input[key] !== undefined);
  if (input.related_object_id !== undefined) {
    if (shorthands.length > 0) {
      throw errors.invalidPayload(`Send either related_object_id or the ${shorthands[0]} shorthand, not both`);
    }
    return { type: input.related_object_type ?? 'voucher', reference: input.related_object_id };
  }
  if (shorthands.length > 1) throw errors.invalidPayload(`Send one of ${SHORTHANDS.join(', ')}, not several`);
  const key = shorthands[0];
  if (key === undefined) throw errors.invalidPayload("Payload should have required property 'related_object_id'");
  if (input.related_object_type !== undefined && input.related_object_type !== key) {
    throw errors.invalidPayload(`Property .related_object_type (${input.related_object_type}) contradicts the ${key} shorthand`);
  }
  return { type: key, reference: input[key] as string };
}

function eventData(rule: ReturnType<typeof toRuleObject>, assignment: AssignmentObject, type: string, summary: Record<string, unknown> | null) {
  const members = Object.fromEntries(EVENT_TARGET_MEMBERS.map((member) => [member, member === type ? summary : null]));
  return { rule, assignment, ...members };
}

/**
 * `POST /v1/validation-rules/{id}/assignments`. With `force`, an identical assignment is replaced by a new
 * one (its deletion and the creation are both recorded); without it the existing one answers 409.
 */
export async function createAssignment(
  deps: Deps,
  actor: Actor,
  ruleId: string,
  input: CreateAssignmentInput,
  force: boolean,
): Promise<AssignmentObject> {
  return inTransaction(deps, (tx) => assignRuleIn(tx, deps, actor, ruleId, input, force));
}

/**
 * Assigns a rule inside the caller's transaction, so an object and its rules are created together
 * (campaigns, vouchers and tiers given `validation_rules` on creation).
 */
export async function assignRuleIn(
  tx: Tx,
  deps: Deps,
  actor: Actor,
  ruleId: string,
  input: CreateAssignmentInput,
  force: boolean,
): Promise<AssignmentObject> {
  const { type, reference } = targetOf(input);
  {
    const ruleRow = await store.findRule(tx, actor.projectId, ruleId, 'share');
    if (!ruleRow) throw errors.notFound('validation_rules', ruleId);
    const target = await resolveAssignmentTarget(tx, actor.projectId, type, reference);
    const events = [];
    const existing = await store.findAssignmentFor(tx, actor.projectId, ruleId, type, target.id);
    if (existing) {
      if (!force) {
        throw domainError('duplicate_found', {
          details: `Duplicated validation_rules_assignment exists with id ${existing.id}`,
          resourceId: existing.id,
          resourceType: 'validation_rules_assignment',
        });
      }
      await store.deleteAssignment(tx, actor.projectId, ruleId, existing.id);
      const counts = await store.assignmentCounts(tx, actor.projectId, [ruleId]);
      events.push(
        makeEvent(deps, actor, {
          type: 'business_validation_rule.assignment.deleted',
          entityId: existing.id,
          data: eventData(toRuleObject(ruleRow, counts.get(ruleId) ?? 0), toAssignmentObject(existing), type, target.summary),
        }),
      );
    }
    const row = { id: deps.ids.next('asgm'), project_id: actor.projectId, rule_id: ruleId, related_object_type: type, related_object_id: target.id, created_at: deps.clock.now().toISOString() };
    if (!(await store.insertAssignmentIfAbsent(tx, row))) {
      // A concurrent request assigned the same rule to the same object after our check.
      const winner = await store.findAssignmentFor(tx, actor.projectId, ruleId, type, target.id);
      throw domainError('duplicate_found', {
        details: `Duplicated validation_rules_assignment exists with id ${winner?.id ?? ''}`,
        resourceId: winner?.id ?? '',
        resourceType: 'validation_rules_assignment',
      });
    }
    const assignment = toAssignmentObject(row);
    const counts = await store.assignmentCounts(tx, actor.projectId, [ruleId]);
    events.push(
      makeEvent(deps, actor, {
        type: 'business_validation_rule.assignment.created',
        entityId: assignment.id,
        data: eventData(toRuleObject(ruleRow, counts.get(ruleId) ?? 0), assignment, type, target.summary),
      }),
    );
    await appendEvents(tx, events);
    return assignment;
  }
}

export async function deleteAssignment(deps: Deps, actor: Actor, ruleId: string, assignmentId: string): Promise<void> {
  await inTransaction(deps, async (tx) => {
    const ruleRow = await store.findRule(tx, actor.projectId, ruleId, 'share');
    if (!ruleRow) throw errors.notFound('validation_rules', ruleId);
    const removed = await store.deleteAssignment(tx, actor.projectId, ruleId, assignmentId);
    if (!removed) throw errors.notFound('validation_rules_assignment', assignmentId);
    const counts = await store.assignmentCounts(tx, actor.projectId, [ruleId]);
    await appendEvents(tx, [
      makeEvent(deps, actor, {
        type: 'business_validation_rule.assignment.deleted',
        entityId: removed.id,
        data: eventData(toRuleObject(ruleRow, counts.get(ruleId) ?? 0), toAssignmentObject(removed), removed.related_object_type, {
          id: removed.related_object_id,
          object: removed.related_object_type,
        }),
      }),
    ]);
  });
}

export interface AssignmentList {
  object: 'list';
  data_ref: 'data';
  data: AssignmentObject[];
  total: number;
}

async function list(deps: Deps, actor: Actor, query: ListAllAssignmentsInput, ruleId?: string): Promise<AssignmentList> {
  const limit = query.limit ?? 10;
  const { rows, total } = await store.listAssignments(deps.db, {
    projectId: actor.projectId,
    limit,
    offset: ((query.page ?? 1) - 1) * limit,
    descending: (query.order ?? '-created_at') === '-created_at',
    ...(ruleId !== undefined ? { ruleId } : query.rule !== undefined ? { ruleId: query.rule } : {}),
    ...(query.related_object_id !== undefined ? { relatedObjectId: query.related_object_id } : {}),
  });
  return { object: 'list', data_ref: 'data', data: rows.map(toAssignmentObject), total };
}

/** Seed 4.9: an unknown rule is not an error; its list is simply empty. */
export async function listRuleAssignments(deps: Deps, actor: Actor, ruleId: string, query: ListRuleAssignmentsInput): Promise<AssignmentList> {
  return list(deps, actor, query, ruleId);
}

export async function listAllAssignments(deps: Deps, actor: Actor, query: ListAllAssignmentsInput): Promise<AssignmentList> {
  return list(deps, actor, query);
}
