import type {
  ConsentGroupInput,
  ConsentGroupOut,
  ConsentGroupUpdateInput,
  ConsentInput,
  ConsentOut,
  ConsentsListOut,
  ConsentUpdateInput,
  CustomerConsentListOut,
  CustomerConsentsInput,
} from '../../api/consents.ts';
import { businessError, errors } from '../../domain/errors.ts';
import * as store from '../../store/consents.ts';
import { findLiveCustomer } from '../../store/customers.ts';
import type { Executor } from '../../store/db.ts';
import { appendEvents } from '../../store/events.ts';
import { fromJson, toJson } from '../../store/json.ts';
import { findProject, lockProjectRow } from '../../store/projects.ts';
import { inTransaction, listing, makeEvent, type Actor, type Deps } from '../context.ts';
import { readableRows } from '../../lib/unreadable-rows.ts';

// Consents: the marketing permissions a project asks its customers for (consent groups show several
// together), and each customer's answer. The vendor's API lists them (`GET /v1/consents`, client side too)
// and records a customer's answers (`PUT …/customers/{id}/consents`); its dashboard defines them, which
// here is the management API. A customer's answers are kept per customer and consent and recorded as a
// `customer.consents.updated` activity in the same transaction. The same functions serve any page that
// shows a customer their choices (a preference center).

export const MAX_CONSENTS_PER_PROJECT = 200;
export const MAX_GROUPS_PER_PROJECT = 50;
/** The key of a customer's answers that withdraws every consent they granted. */
export const UNSUBSCRIBED = 'unsubscribed';

type ManagementActor = Omit<Actor, 'projectId'>;

function toConsent(row: store.ConsentRow): ConsentOut {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    category: row.category,
    created_at: row.created_at,
    ...(row.updated_at ? { updated_at: row.updated_at } : {}),
    object: 'consent',
  };
}

function toGroup(row: store.ConsentGroupRow): ConsentGroupOut {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    consents: fromJson<string[]>(row.consents, []),
    created_at: row.created_at,
    ...(row.updated_at ? { updated_at: row.updated_at } : {}),
    object: 'consent_group',
  };
}

async function requireProject(db: Executor, projectId: string): Promise<void> {
  if (!(await findProject(db, projectId))) throw errors.notFound('project', projectId);
}

const limitReached = (what: string, max: number) =>
  businessError('limit_reached', 'Limit reached', { details: `A project can have at most ${max} ${what}; delete one first` });

async function assertConsentsExist(db: Executor, projectId: string, ids: readonly string[]): Promise<void> {
  const known = await store.existingConsentIds(db, projectId, ids);
  const missing = ids.find((id) => !known.has(id));
  if (missing !== undefined) throw errors.notFound('consent', missing);
}

function definitionEvent(deps: Deps, actor: ManagementActor, projectId: string, type: string, data: Record<string, unknown>, id: string) {
  return makeEvent(deps, { ...actor, projectId }, { type, entityId: id, data });
}

// ---- definitions (management API) ----

export async function createConsent(deps: Deps, actor: ManagementActor, projectId: string, input: ConsentInput): Promise<ConsentOut> {
  return inTransaction(deps, async (tx) => {
    await requireProject(tx, projectId);
    // Serialises the project's definition changes, so the limit holds under concurrent requests.
    await lockProjectRow(tx, projectId);
    if ((await store.countConsents(tx, projectId)) >= MAX_CONSENTS_PER_PROJECT) throw limitReached('consents', MAX_CONSENTS_PER_PROJECT);
    const id = deps.ids.next('cnst');
    await store.insertConsent(tx, {
      id,
      project_id: projectId,
      name: input.name,
      description: input.description ?? null,
      category: input.category ?? null,
      created_at: deps.clock.now().toISOString(),
      updated_at: null,
    });
    const consent = toConsent(await requireConsent(tx, projectId, id));
    await appendEvents(tx, [definitionEvent(deps, actor, projectId, 'consent.created', { consent }, id)]);
    return consent;
  });
}

async function requireConsent(db: Executor, projectId: string, id: string): Promise<store.ConsentRow> {
  const row = await store.findConsent(db, projectId, id);
  if (!row) throw errors.notFound('consent', id);
  return row;
}

async function requireGroup(db: Executor, projectId: string, id: string): Promise<store.ConsentGroupRow> {
  const row = await store.findConsentGroup(db, projectId, id);
  if (!row) throw errors.notFound('consent_group', id);
  return row;
}

export async function getConsent(deps: Deps, projectId: string, id: string): Promise<ConsentOut> {
  await requireProject(deps.db, projectId);
  return toConsent(await requireConsent(deps.db, projectId, id));
}

export async function updateConsent(deps: Deps, actor: ManagementActor, projectId: string, id: string, input: ConsentUpdateInput): Promise<ConsentOut> {
  return inTransaction(deps, async (tx) => {
    await requireProject(tx, projectId);
    await requireConsent(tx, projectId, id);
    await store.updateConsent(tx, projectId, id, {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.category !== undefined ? { category: input.category } : {}),
      updated_at: deps.clock.now().toISOString(),
    });
    const consent = toConsent(await requireConsent(tx, projectId, id));
    await appendEvents(tx, [definitionEvent(deps, actor, projectId, 'consent.updated', { consent }, id)]);
    return consent;
  });
}

/** Deletes a consent, every customer's answer to it, and its place in the groups that list it. */
export async function deleteConsent(deps: Deps, actor: ManagementActor, projectId: string, id: string): Promise<void> {
  await inTransaction(deps, async (tx) => {
    await requireProject(tx, projectId);
    await lockProjectRow(tx, projectId);
    const consent = toConsent(await requireConsent(tx, projectId, id));
    if (!(await store.deleteConsent(tx, projectId, id))) throw errors.notFound('consent', id);
    await store.dropConsentFromGroups(tx, projectId, id, deps.clock.now().toISOString(), await store.listConsentGroups(tx, projectId, MAX_GROUPS_PER_PROJECT));
    await appendEvents(tx, [definitionEvent(deps, actor, projectId, 'consent.deleted', { consent }, id)]);
  });
}

export async function listProjectConsents(deps: Deps, projectId: string) {
  await requireProject(deps.db, projectId);
  const data = (await store.listConsents(deps.db, projectId, MAX_CONSENTS_PER_PROJECT)).map(toConsent);
  return { object: 'list' as const, total: data.length, data_ref: 'data' as const, data };
}

export async function createConsentGroup(deps: Deps, actor: ManagementActor, projectId: string, input: ConsentGroupInput): Promise<ConsentGroupOut> {
  return inTransaction(deps, async (tx) => {
    await requireProject(tx, projectId);
    await lockProjectRow(tx, projectId);
    if ((await store.countConsentGroups(tx, projectId)) >= MAX_GROUPS_PER_PROJECT) throw limitReached('consent groups', MAX_GROUPS_PER_PROJECT);
    await assertConsentsExist(tx, projectId, input.consents);
    const id = deps.ids.next('cngr');
    await store.insertConsentGroup(tx, {
      id,
      project_id: projectId,
      name: input.name,
      description: input.description ?? null,
      consents: toJson(input.consents),
      created_at: deps.clock.now().toISOString(),
      updated_at: null,
    });
    const group = toGroup(await requireGroup(tx, projectId, id));
    await appendEvents(tx, [definitionEvent(deps, actor, projectId, 'consent_group.created', { consent_group: group }, id)]);
    return group;
  });
}

export async function getConsentGroup(deps: Deps, projectId: string, id: string): Promise<ConsentGroupOut> {
  await requireProject(deps.db, projectId);
  return toGroup(await requireGroup(deps.db, projectId, id));
}

export async function updateConsentGroup(deps: Deps, actor: ManagementActor, projectId: string, id: string, input: ConsentGroupUpdateInput): Promise<ConsentGroupOut> {
  return inTransaction(deps, async (tx) => {
    await requireProject(tx, projectId);
    // A consent deleted concurrently must not stay listed: the project lock orders this after the deletion.
    await lockProjectRow(tx, projectId);
    await requireGroup(tx, projectId, id);
    if (input.consents !== undefined) await assertConsentsExist(tx, projectId, input.consents);
    await store.updateConsentGroup(tx, projectId, id, {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.consents !== undefined ? { consents: toJson(input.consents) } : {}),
      updated_at: deps.clock.now().toISOString(),
    });
    const group = toGroup(await requireGroup(tx, projectId, id));
    await appendEvents(tx, [definitionEvent(deps, actor, projectId, 'consent_group.updated', { consent_group: group }, id)]);
    return group;
  });
}

export async function deleteConsentGroup(deps: Deps, actor: ManagementActor, projectId: string, id: string): Promise<void> {
  await inTransaction(deps, async (tx) => {
    await requireProject(tx, projectId);
    const group = toGroup(await requireGroup(tx, projectId, id));
    if (!(await store.deleteConsentGroup(tx, projectId, id))) throw errors.notFound('consent_group', id);
    await appendEvents(tx, [definitionEvent(deps, actor, projectId, 'consent_group.deleted', { consent_group: group }, id)]);
  });
}

export async function listProjectConsentGroups(deps: Deps, projectId: string) {
  await requireProject(deps.db, projectId);
  const data = await readableRows(listing(deps, { projectId }, 'consent_group'), await store.listConsentGroups(deps.db, projectId, MAX_GROUPS_PER_PROJECT), (some) => some.map(toGroup));
  return { object: 'list' as const, total: data.length, data_ref: 'data' as const, data };
}

// ---- the project's consents as both API sides read them ----

/** `GET /v1/consents` and `GET /client/v1/consents`. */
export async function listConsents(deps: Deps, actor: Actor): Promise<ConsentsListOut> {
  const [groups, consents] = await Promise.all([
    store.listConsentGroups(deps.db, actor.projectId, MAX_GROUPS_PER_PROJECT),
    store.listConsents(deps.db, actor.projectId, MAX_CONSENTS_PER_PROJECT),
  ]);
  const readableGroups = await readableRows(listing(deps, actor, 'consent_group'), groups, (some) => some.map(toGroup));
  return {
    groups: { object: 'list', total: readableGroups.length, data_ref: 'data', data: readableGroups },
    consents: { object: 'list', total: consents.length, data_ref: 'data', data: consents.map(toConsent) },
  };
}

// ---- a customer's answers ----

async function liveCustomerId(db: Executor, actor: Actor, customerId: string): Promise<string> {
  const row = await findLiveCustomer(db, actor.projectId, customerId);
  if (!row) throw errors.notFound('customer', customerId);
  return row.id;
}

/**
 * `PUT /v1/customers/{customerId}/consents` (and client side): the customer's answers, consent id → true
 * (opt in) or false (opt out); `unsubscribed: true` first withdraws every consent they granted. Unknown
 * consent ids are 404 and change nothing. What changed is recorded on the customer's activity.
 */
export async function updateCustomerConsents(deps: Deps, actor: Actor, customerId: string, input: CustomerConsentsInput): Promise<void> {
  const { [UNSUBSCRIBED]: unsubscribed, ...answers } = input;
  const answered = new Map(Object.entries(answers));
  await inTransaction(deps, async (tx) => {
    const id = await liveCustomerId(tx, actor, customerId);
    await assertConsentsExist(tx, actor.projectId, [...answered.keys()]);
    const at = deps.clock.now().toISOString();
    const withdrawn = unsubscribed === true ? await store.withdrawCustomerConsents(tx, actor.projectId, id, at) : [];
    await store.upsertCustomerConsents(tx, actor.projectId, id, answered, at);
    if (withdrawn.length === 0 && answered.size === 0 && unsubscribed !== true) return;
    const consents = { ...Object.fromEntries(withdrawn.map((c) => [c, false])), ...Object.fromEntries(answered) };
    await appendEvents(tx, [
      makeEvent(deps, actor, {
        type: 'customer.consents.updated',
        activityType: 'customer.consents.updated',
        activityCategory: 'ACTION',
        customerId: id,
        entityId: id,
        data: { customer_id: id, consents, ...(unsubscribed === true ? { unsubscribed: true } : {}) },
      }),
    ]);
  });
}

/** A customer's answers, one per consent they answered (`GET /v1/customers/{customerId}/consents`). */
export async function customerConsents(deps: Deps, actor: Actor, customerId: string): Promise<CustomerConsentListOut> {
  const id = await liveCustomerId(deps.db, actor, customerId);
  const data = (await store.listCustomerConsents(deps.db, actor.projectId, id)).map((row) => ({
    consent_id: row.consent_id,
    granted: Boolean(row.granted),
    updated_at: row.updated_at,
    object: 'customer_consent' as const,
  }));
  return { object: 'list', data_ref: 'data', data, total: data.length };
}
