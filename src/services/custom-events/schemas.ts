import { businessError, errors } from '../../domain/errors.ts';
import type { MetadataSchemaDefinition } from '../../domain/metadata-schemas/metadata-problems.ts';
import type {
  CreateCustomEventSchemaInput,
  CUSTOM_EVENT_PROPERTY_TYPES,
  UpdateCustomEventSchemaInput,
} from '../../api/custom-events.ts';
import * as store from '../../store/custom-event-schemas.ts';
import type { Executor } from '../../store/db.ts';
import { appendEvents } from '../../store/events.ts';
import { fromJson, toJson } from '../../store/json.ts';
import { findProject, lockProjectRow } from '../../store/projects.ts';
import { isUniqueViolation } from '../../store/sql-errors.ts';
import { inTransaction, makeEvent, type Actor, type Deps } from '../context.ts';

// Custom event schemas of the management API (seed 2.12, 4.8; platform reference 5.2). A custom event
// can be tracked only under a name that has a schema (DECISIONS 24); its metadata follows the schema's
// properties.

const RESOURCE = 'custom_event_schema';
/** Bounds the list, which has no paging. */
export const MAX_CUSTOM_EVENT_SCHEMAS_PER_PROJECT = 500;

export interface EventProperty {
  type: (typeof CUSTOM_EVENT_PROPERTY_TYPES)[number];
  optional: boolean;
  deleted?: boolean;
}

type Properties = Record<string, EventProperty>;

export interface CustomEventSchemaObject {
  id: string;
  name: string;
  schema: { properties: Properties };
  created_at: string;
  updated_at: string | null;
  object: 'custom-event-schema';
}

export function propertiesOf(row: store.CustomEventSchemaRow): Properties {
  return fromJson<Properties>(row.properties, {});
}

export function toCustomEventSchemaObject(row: store.CustomEventSchemaRow): CustomEventSchemaObject {
  return {
    id: row.id,
    name: row.name,
    schema: { properties: propertiesOf(row) },
    created_at: row.created_at,
    updated_at: row.updated_at,
    object: 'custom-event-schema',
  };
}

/** The schema's properties as a metadata schema, so one checker validates both kinds of metadata. */
export function asMetadataSchema(properties: Properties): MetadataSchemaDefinition {
  return {
    properties: Object.fromEntries(
      Object.entries(properties).map(([name, p]) => [name, { type: p.type, optional: p.optional, array: false, deleted: p.deleted ?? false }]),
    ),
    allow_defined_only: false,
  };
}

function cleanProperty(p: { type: EventProperty['type']; optional: boolean; deleted?: boolean | undefined }): EventProperty {
  return { type: p.type, optional: p.optional, ...(p.deleted ? { deleted: true } : {}) };
}

type ManagementActor = Omit<Actor, 'projectId'>;

async function requireProject(db: Executor, projectId: string): Promise<void> {
  if (!(await findProject(db, projectId))) throw errors.notFound('project', projectId);
}

async function requireSchema(db: Executor, projectId: string, id: string): Promise<store.CustomEventSchemaRow> {
  const row = await store.findCustomEventSchemaById(db, projectId, id);
  if (!row) throw errors.notFound(RESOURCE, id);
  return row;
}

function schemaEvent(deps: Deps, actor: ManagementActor, projectId: string, type: string, schema: CustomEventSchemaObject) {
  return makeEvent(deps, { ...actor, projectId }, { type, entityId: schema.id, data: { custom_event_schema: schema } });
}

export async function createCustomEventSchema(
  deps: Deps,
  actor: ManagementActor,
  projectId: string,
  input: CreateCustomEventSchemaInput,
): Promise<CustomEventSchemaObject> {
  const duplicate = () => errors.duplicate(RESOURCE, 'name', input.name);
  try {
    return await inTransaction(deps, async (tx) => {
      await requireProject(tx, projectId);
      await lockProjectRow(tx, projectId);
      if (await store.findCustomEventSchemaByName(tx, projectId, input.name)) throw duplicate();
      if ((await store.countCustomEventSchemas(tx, projectId)) >= MAX_CUSTOM_EVENT_SCHEMAS_PER_PROJECT) {
        throw businessError('limit_reached', 'Limit reached', {
          details: `A project can have at most ${MAX_CUSTOM_EVENT_SCHEMAS_PER_PROJECT} custom event schemas`,
          resourceType: RESOURCE,
        });
      }
      const properties = Object.fromEntries(Object.entries(input.schema.properties).map(([name, p]) => [name, cleanProperty(p)]));
      const now = deps.clock.now().toISOString();
      const id = deps.ids.next('ms');
      await store.insertCustomEventSchema(tx, { id, project_id: projectId, name: input.name, properties: toJson(properties), created_at: now, updated_at: null });
      const schema = toCustomEventSchemaObject(await requireSchema(tx, projectId, id));
      await appendEvents(tx, [schemaEvent(deps, actor, projectId, 'custom_event_schema.created', schema)]);
      return schema;
    });
  } catch (error) {
    // Two concurrent creates of one name: the unique index lets one win.
    if (isUniqueViolation(error)) throw duplicate();
    throw error;
  }
}

export async function listCustomEventSchemas(deps: Deps, projectId: string) {
  await requireProject(deps.db, projectId);
  const data = (await store.listCustomEventSchemas(deps.db, projectId, MAX_CUSTOM_EVENT_SCHEMAS_PER_PROJECT)).map(toCustomEventSchemaObject);
  return { object: 'list' as const, data_ref: 'data' as const, data, total: data.length };
}

export async function getCustomEventSchema(deps: Deps, projectId: string, id: string): Promise<CustomEventSchemaObject> {
  await requireProject(deps.db, projectId);
  return toCustomEventSchemaObject(await requireSchema(deps.db, projectId, id));
}

/**
 * Merges the properties sent into the stored ones: a new property needs `type` and `optional`, an
 * existing one takes whichever members are sent (its type may change); `deleted: true` soft-removes it.
 */
export async function updateCustomEventSchema(
  deps: Deps,
  actor: ManagementActor,
  projectId: string,
  id: string,
  input: UpdateCustomEventSchemaInput,
): Promise<CustomEventSchemaObject> {
  return inTransaction(deps, async (tx) => {
    await requireProject(tx, projectId);
    const row = await requireSchema(tx, projectId, id);
    const properties = propertiesOf(row);
    for (const [name, change] of Object.entries(input.schema.properties)) {
      const current = properties[name];
      const type = change.type ?? current?.type;
      const optional = change.optional ?? current?.optional;
      if (type === undefined) throw errors.invalidPayload(`Property .schema.properties.${name} should have required property 'type'`);
      if (optional === undefined) throw errors.invalidPayload(`Property .schema.properties.${name} should have required property 'optional'`);
      properties[name] = cleanProperty({ type, optional, deleted: change.deleted ?? current?.deleted });
    }
    const changed = await store.updateCustomEventSchema(tx, projectId, id, { properties: toJson(properties), updated_at: deps.clock.now().toISOString() });
    if (!changed) throw errors.notFound(RESOURCE, id);
    const schema = toCustomEventSchemaObject(await requireSchema(tx, projectId, id));
    await appendEvents(tx, [schemaEvent(deps, actor, projectId, 'custom_event_schema.updated', schema)]);
    return schema;
  });
}

/** Removes the schema; events with its name are refused from then on (DECISIONS 24). Tracked events stay. */
export async function deleteCustomEventSchema(deps: Deps, actor: ManagementActor, projectId: string, id: string): Promise<void> {
  await inTransaction(deps, async (tx) => {
    await requireProject(tx, projectId);
    const row = await requireSchema(tx, projectId, id);
    if (!(await store.deleteCustomEventSchema(tx, projectId, id))) throw errors.notFound(RESOURCE, id);
    await appendEvents(tx, [schemaEvent(deps, actor, projectId, 'custom_event_schema.deleted', toCustomEventSchemaObject(row))]);
  });
}
