import { DomainError, errors } from '../../domain/errors.ts';
import { DEFAULT_STACKING_RULES, type StackingRules } from '../../domain/redemptions/stacking.ts';
import type { StackingRulesInput } from '../../api/redemptions.ts';
import type { Executor } from '../../store/db.ts';
import { fromJson, toJson } from '../../store/json.ts';
import { findProject } from '../../store/projects.ts';
import * as store from '../../store/stacking-rules.ts';
import { inTransaction, listing, type Deps } from '../context.ts';
import { readableRows } from '../../lib/unreadable-rows.ts';

// A project's stacking rules (promotions reference 6.6), managed through
// `/management/v1/projects/{projectId}/stacking-rules`. A project has at most one set; without one the
// defaults (DECISIONS 11) apply. Every validation, redemption and qualification echoes the rules in effect.

export interface StackingRulesObject extends StackingRules {
  id: string;
  created_at: string;
  updated_at: string | null;
}

/** Stored members over the defaults, so rules stored before a member existed still read complete. */
export function rulesOf(row: store.StackingRulesRow | undefined): StackingRules {
  if (!row) return DEFAULT_STACKING_RULES;
  return { ...DEFAULT_STACKING_RULES, ...fromJson<Partial<StackingRules>>(row.rules, {}) };
}

/** The rules the engine applies for a project. */
export async function effectiveStackingRules(db: Executor, projectId: string): Promise<StackingRules> {
  return rulesOf(await store.findProjectStackingRules(db, projectId));
}

function toObject(row: store.StackingRulesRow): StackingRulesObject {
  return { id: row.id, ...rulesOf(row), created_at: row.created_at, updated_at: row.updated_at };
}

/** Members sent over `base`; null means "back to the default". */
function merged(base: StackingRules, input: StackingRulesInput): StackingRules {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined) continue;
    out[key] = value === null ? DEFAULT_STACKING_RULES[key as keyof StackingRules] : value;
  }
  const rules = out as unknown as StackingRules;
  const clash = rules.no_effect_skip_categories.find((c) => rules.no_effect_redeem_anyway_categories.includes(c));
  if (clash) throw errors.invalidPayload(`Category ${clash} cannot be in both no_effect_skip_categories and no_effect_redeem_anyway_categories`);
  const modeClash = rules.initial_amount_mode_categories.find((c) => rules.discounted_amount_mode_categories.includes(c));
  if (modeClash) throw errors.invalidPayload(`Category ${modeClash} cannot be in both initial_amount_mode_categories and discounted_amount_mode_categories`);
  return rules;
}

async function requireProject(db: Executor, projectId: string): Promise<void> {
  if (!(await findProject(db, projectId))) throw errors.notFound('project', projectId);
}

async function requireRules(db: Executor, projectId: string, id: string): Promise<store.StackingRulesRow> {
  const row = await store.findProjectStackingRules(db, projectId);
  if (!row || row.id !== id) throw errors.notFound('stacking_rules', id);
  return row;
}

export async function createStackingRules(deps: Deps, projectId: string, input: StackingRulesInput): Promise<StackingRulesObject> {
  return inTransaction(deps, async (tx) => {
    await requireProject(tx, projectId);
    const rules = merged(DEFAULT_STACKING_RULES, input);
    const id = deps.ids.next('str');
    const inserted = await store.insertStackingRulesIfAbsent(tx, { id, project_id: projectId, rules: toJson(rules), created_at: deps.clock.now().toISOString(), updated_at: null });
    if (!inserted) {
      throw new DomainError('stacking_rules_exist', 409, {
        message: 'Stacking rules already exist',
        details: `Project ${projectId} has stacking rules already; update them with PUT`,
        resourceType: 'stacking_rules',
      });
    }
    return toObject(await requireRules(tx, projectId, id));
  });
}

export async function listStackingRules(deps: Deps, projectId: string): Promise<{ object: 'list'; data_ref: 'data'; data: StackingRulesObject[]; total: number }> {
  await requireProject(deps.db, projectId);
  const row = await store.findProjectStackingRules(deps.db, projectId);
  const data = await readableRows(listing(deps, { projectId }, 'stacking_rules'), row ? [row] : [], (some) => some.map(toObject));
  return { object: 'list', data_ref: 'data', data, total: data.length };
}

export async function getStackingRules(deps: Deps, projectId: string, id: string): Promise<StackingRulesObject> {
  await requireProject(deps.db, projectId);
  return toObject(await requireRules(deps.db, projectId, id));
}

export async function updateStackingRules(deps: Deps, projectId: string, id: string, input: StackingRulesInput): Promise<StackingRulesObject> {
  return inTransaction(deps, async (tx) => {
    await requireProject(tx, projectId);
    const row = await requireRules(tx, projectId, id);
    const rules = merged(rulesOf(row), input);
    await store.updateStackingRules(tx, projectId, id, toJson(rules), deps.clock.now().toISOString());
    return toObject(await requireRules(tx, projectId, id));
  });
}

export async function deleteStackingRules(deps: Deps, projectId: string, id: string): Promise<void> {
  await inTransaction(deps, async (tx) => {
    await requireProject(tx, projectId);
    if (!(await store.deleteStackingRules(tx, projectId, id))) throw errors.notFound('stacking_rules', id);
  });
}
