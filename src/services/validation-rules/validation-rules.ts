import type { Updateable } from 'kysely';
import { businessError, errors } from '../../domain/errors.ts';
import {
  normaliseDefinition,
  referencedObjects,
  RuleDefinitionError,
  type NormalisedDefinition,
} from '../../domain/rules/definition.ts';
import { queryInstant } from '../../domain/time/query-instant.ts';
import type {
  AssignmentObjectOut,
  CreateValidationRuleInput,
  ListValidationRulesInput,
  UpdateValidationRuleInput,
  ValidationRuleObjectOut,
} from '../../api/validation-rules.ts';
import type { Executor, Tx } from '../../store/db.ts';
import type { DefinitionsView } from '../../store/definitions.ts';
import { appendEvents } from '../../store/events.ts';
import { fromJson, toJson } from '../../store/json.ts';
import type { ValidationRulesTable } from '../../store/schema.ts';
import { isUniqueViolation } from '../../store/sql-errors.ts';
import * as store from '../../store/validation-rules.ts';
import type { RuleSort, ValidationRuleRow } from '../../store/validation-rules.ts';
import { inTransaction, listing, makeEvent, type Actor, type Deps } from '../context.ts';
import { readableRows } from '../../lib/unreadable-rows.ts';

// Validation rule CRUD (promotions reference 5.1, 5.5). A definition is checked and normalised by the
// rule language (src/domain/rules) before anything is written; the objects it names (collections,
// segments) must exist and are recorded so they cannot be deleted while a rule uses them.

/** The validation rule object (reference 5.1), as the route schema declares it. */
export type ValidationRuleObject = ValidationRuleObjectOut;

export function definitionOf(row: ValidationRuleRow): NormalisedDefinition {
  return {
    rules: fromJson(row.rules, { logic: '' }),
    error: fromJson<{ message: string } | null>(row.error, null),
    applicable_to: fromJson(row.applicable_to, { included: [], excluded: [], included_all: false }),
  };
}

export function toRuleObject(row: ValidationRuleRow, assignmentsCount: number): ValidationRuleObject {
  const definition = definitionOf(row);
  return {
    id: row.id,
    name: row.name,
    rules: definition.rules,
    ...(definition.error ? { error: definition.error } : {}),
    applicable_to: definition.applicable_to,
    // Written only from the schema's enum; the column is plain text.
    type: row.type as ValidationRuleObject['type'],
    context_type: row.context_type,
    created_at: row.created_at,
    updated_at: row.updated_at,
    assignments_count: assignmentsCount,
    object: 'validation_rules',
  };
}

function invalidDefinition(details: string) {
  return businessError('invalid_validation_rules', 'Invalid Validation Rule Definition', { details });
}

interface DefinitionMembers {
  rules?: Record<string, unknown> | null;
  bundle_rules?: Record<string, unknown> | null;
  error?: { message?: string | null } | null;
  applicable_to?: unknown;
}

function checkBundleRules(bundleRules: Record<string, unknown> | null | undefined): void {
  if (bundleRules && Object.keys(bundleRules).length > 0) {
    // Bundles change the discount multiplier; accepting them without honouring them would over-discount.
    throw invalidDefinition('bundle_rules are not supported; send them empty or null');
  }
}

function checkDefinition(input: DefinitionMembers): NormalisedDefinition {
  checkBundleRules(input.bundle_rules);
  try {
    return normaliseDefinition({ rules: input.rules, error: input.error, applicable_to: input.applicable_to });
  } catch (error) {
    if (error instanceof RuleDefinitionError) throw invalidDefinition(error.details);
    throw error;
  }
}

/**
 * Checks that the collections and segments a definition names exist, and records them as the rule's
 * references. On PostgreSQL the named rows are share-locked until commit, so a concurrent delete of one
 * of them either waits and then sees this rule, or wins and this save fails.
 */
async function recordReferences(tx: Tx, projectId: string, ruleId: string, definition: NormalisedDefinition): Promise<void> {
  const { collections, segments } = referencedObjects(definition);
  const foundCollections = await store.lockExistingObjects(tx, projectId, 'product_collections', collections);
  const missingCollection = collections.find((id) => !foundCollections.has(id));
  if (missingCollection) throw invalidDefinition(`The rule names products_collection ${missingCollection}, which does not exist`);
  const foundSegments = await store.lockExistingObjects(tx, projectId, 'segments', segments);
  const missingSegment = segments.find((id) => !foundSegments.has(id));
  if (missingSegment) throw invalidDefinition(`The rule names segment ${missingSegment}, which does not exist`);
  await store.replaceReferences(tx, projectId, ruleId, [
    ...collections.map((id) => ({ type: 'products_collection' as const, id })),
    ...segments.map((id) => ({ type: 'segment' as const, id })),
  ]);
}

/** A rename onto a name another rule holds is caught by the unique index, whichever request came first. */
async function guardName<T>(name: string | undefined, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (isUniqueViolation(error)) throw errors.duplicate('validation_rules', 'name', name ?? '');
    throw error;
  }
}

async function reread(tx: Executor, projectId: string, id: string): Promise<ValidationRuleObject> {
  const row = await store.findRule(tx, projectId, id);
  if (!row) throw new Error(`validation rule ${id} vanished inside its own transaction`);
  const counts = await store.assignmentCounts(tx, projectId, [id]);
  return toRuleObject(row, counts.get(id) ?? 0);
}

export async function createRule(deps: Deps, actor: Actor, input: CreateValidationRuleInput): Promise<ValidationRuleObject> {
  return guardName(input.name, () => inTransaction(deps, (tx) => createRuleIn(tx, deps, actor, input)));
}

/**
 * Creates a rule inside the caller's transaction (a campaign or tier made from a template gets copies of
 * the template's rules). A name another rule holds fails on the unique index.
 */
export async function createRuleIn(tx: Tx, deps: Deps, actor: Actor, input: CreateValidationRuleInput): Promise<ValidationRuleObject> {
  const definition = checkDefinition(input);
  const id = deps.ids.next('val');
  const now = deps.clock.now().toISOString();
  await store.insertRule(tx, {
    id,
    project_id: actor.projectId,
    name: input.name,
    rules: toJson(definition.rules),
    error: definition.error === null ? null : toJson(definition.error),
    applicable_to: toJson(definition.applicable_to),
    type: input.type ?? 'expression',
    context_type: input.context_type ?? 'global',
    created_at: now,
    updated_at: null,
  });
  await recordReferences(tx, actor.projectId, id, definition);
  const rule = await reread(tx, actor.projectId, id);
  await appendEvents(tx, [makeEvent(deps, actor, { type: 'business_validation_rule.created', entityId: id, data: { rule, created_at: now } })]);
  return rule;
}

export async function getRule(deps: Deps, actor: Actor, id: string): Promise<ValidationRuleObject> {
  const row = await store.findRule(deps.db, actor.projectId, id);
  if (!row) throw errors.notFound('validation_rules', id);
  const counts = await store.assignmentCounts(deps.db, actor.projectId, [id]);
  return toRuleObject(row, counts.get(id) ?? 0);
}

/** PUT: members sent replace the stored ones (`error: null` clears the message); the rest stays. */
export async function updateRule(deps: Deps, actor: Actor, id: string, input: UpdateValidationRuleInput): Promise<ValidationRuleObject> {
  return guardName(input.name, () =>
    inTransaction(deps, async (tx) => {
      const row = await store.findRule(tx, actor.projectId, id, 'update');
      if (!row) throw errors.notFound('validation_rules', id);
      const stored = definitionOf(row);
      checkBundleRules(input.bundle_rules);
      const definitionChanges = input.rules !== undefined || input.error !== undefined || input.applicable_to !== undefined;
      const definition = definitionChanges
        ? checkDefinition({
            rules: input.rules === undefined ? stored.rules : input.rules,
            error: input.error === undefined ? stored.error : input.error,
            applicable_to: input.applicable_to === undefined ? stored.applicable_to : input.applicable_to,
          })
        : stored;
      const now = deps.clock.now().toISOString();
      const patch: Updateable<ValidationRulesTable> = {
        updated_at: now,
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.type !== undefined ? { type: input.type } : {}),
        ...(input.context_type !== undefined ? { context_type: input.context_type } : {}),
        ...(definitionChanges
          ? {
              rules: toJson(definition.rules),
              error: definition.error === null ? null : toJson(definition.error),
              applicable_to: toJson(definition.applicable_to),
            }
          : {}),
      };
      if (!(await store.updateRule(tx, actor.projectId, id, patch))) throw errors.notFound('validation_rules', id);
      if (definitionChanges) await recordReferences(tx, actor.projectId, id, definition);
      const rule = await reread(tx, actor.projectId, id);
      await appendEvents(tx, [
        makeEvent(deps, actor, { type: 'business_validation_rule.updated', entityId: id, data: { rule, updated_at: now } }),
      ]);
      return rule;
    }),
  );
}

/** Deletes a rule together with its assignments (reference 5.5 *Rec.*), one event per assignment removed. */
export async function deleteRule(deps: Deps, actor: Actor, id: string): Promise<void> {
  await inTransaction(deps, async (tx) => {
    const row = await store.findRule(tx, actor.projectId, id, 'update');
    if (!row) throw errors.notFound('validation_rules', id);
    const rule = toRuleObject(row, 0);
    const removed = await store.deleteAssignmentsOfRule(tx, actor.projectId, id);
    await store.replaceReferences(tx, actor.projectId, id, []);
    if (!(await store.deleteRuleRow(tx, actor.projectId, id))) throw errors.notFound('validation_rules', id);
    const now = deps.clock.now().toISOString();
    await appendEvents(tx, [
      ...removed.map((assignment) =>
        makeEvent(deps, actor, {
          type: 'business_validation_rule.assignment.deleted',
          entityId: assignment.id,
          data: { rule, assignment: toAssignmentObject(assignment), voucher: null, campaign: null, distribution: null, promotion_tier: null, earning_rule: null },
        }),
      ),
      makeEvent(deps, actor, { type: 'business_validation_rule.deleted', entityId: id, data: { rule: { ...rule, assignments_count: removed.length }, deleted_at: now } }),
    ]);
  });
}

const SORTS: Record<NonNullable<ListValidationRulesInput['order']>, { sort: RuleSort; descending: boolean }> = {
  created_at: { sort: 'created_at', descending: false },
  '-created_at': { sort: 'created_at', descending: true },
  updated_at: { sort: 'updated_at', descending: false },
  '-updated_at': { sort: 'updated_at', descending: true },
  name: { sort: 'name', descending: false },
  '-name': { sort: 'name', descending: true },
};

export interface ValidationRuleList {
  object: 'list';
  data_ref: 'data';
  data: ValidationRuleObject[];
  total: number;
}

export async function listRules(deps: Deps, actor: Actor, query: ListValidationRulesInput): Promise<ValidationRuleList> {
  const { sort, descending } = SORTS[query.order ?? '-created_at'];
  const limit = query.limit ?? 10;
  const { rows, total } = await store.listRules(deps.db, {
    projectId: actor.projectId,
    limit,
    offset: ((query.page ?? 1) - 1) * limit,
    sort,
    descending,
    ...(query.start_date !== undefined ? { createdFrom: queryInstant(query.start_date) } : {}),
    ...(query.end_date !== undefined ? { createdTo: queryInstant(query.end_date, { wholeDay: true }) } : {}),
  });
  const counts = await store.assignmentCounts(
    deps.db,
    actor.projectId,
    rows.map((r) => r.id),
  );
  return { object: 'list', data_ref: 'data', data: await readableRows(listing(deps, actor, 'validation_rule'), rows, (some) => some.map((r) => toRuleObject(r, counts.get(r.id) ?? 0))), total };
}

// ---- assignments as objects ----

export type AssignmentObject = AssignmentObjectOut;

export function toAssignmentObject(row: store.AssignmentRow): AssignmentObject {
  return {
    id: row.id,
    rule_id: row.rule_id,
    related_object_id: row.related_object_id,
    related_object_type: row.related_object_type,
    created_at: row.created_at,
    object: 'validation_rules_assignment',
  };
}

/** A rule guarding an object, as the redemption engine needs it. */
export interface AssignedRule {
  assignment: AssignmentObject;
  ruleId: string;
  name: string;
  definition: NormalisedDefinition;
}

/**
 * The rules assigned to the given objects (e.g. a voucher and its campaign), oldest assignment first.
 * Every one must pass for the object to be redeemable (reference 5.7 *Rec.*).
 */
export async function rulesFor(db: Executor, projectId: string, objects: ReadonlyArray<{ type: string; id: string }>, defs?: DefinitionsView): Promise<AssignedRule[]> {
  const rows = await store.assignedRules(db, projectId, objects, defs);
  return rows.map(({ assignment, rule }) => ({
    assignment: toAssignmentObject(assignment),
    ruleId: rule.id,
    name: rule.name,
    definition: definitionOf(rule),
  }));
}
