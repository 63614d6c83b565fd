import { businessError, errors } from '../../domain/errors.ts';
import {
  metadataProblems,
  type MetadataPropertyDefinition,
  type MetadataSchemaDefinition,
} from '../../domain/metadata-schemas/metadata-problems.ts';
import type {
  CreateMetadataSchemaInput,
  PropertyDefinitionInputT,
  UpdateMetadataSchemaInput,
} from '../../api/metadata-schemas.ts';
import type { Executor } from '../../store/db.ts';
import type { DefinitionsView } from '../../store/definitions.ts';
import { appendEvents } from '../../store/events.ts';
import { fromJson, toJson } from '../../store/json.ts';
import * as store from '../../store/metadata-schemas.ts';
import { findProject, lockProjectRow } from '../../store/projects.ts';
import { isUniqueViolation } from '../../store/sql-errors.ts';
import { inTransaction, listing, makeEvent, type Actor, type Deps } from '../context.ts';
import { readableRows } from '../../lib/unreadable-rows.ts';

// Metadata schemas (platform reference 5.3): definitions per related object, written through the
// management API, read through /v1, and enforced on writes by assertMetadata.

/** The vendor's resource_type for these errors (platform reference 2.1). */
const RESOURCE = 'metadata schema';
/** Bounds the management list, which has no paging. */
export const MAX_METADATA_SCHEMAS_PER_PROJECT = 200;

type Definitions = Record<string, MetadataPropertyDefinition>;

const STRING_ONLY = ['min_length', 'max_length', 'exact_length'] as const;
const NUMBER_ONLY = ['ne', 'lt', 'lte', 'gt', 'gte'] as const;

/**
 * One definition from the request. A definition replaces the stored one entirely (vendor rule: pairs not
 * sent go back to their defaults), except `{deleted: true}` alone, which soft-removes the stored one as it is.
 */
async function normalizeDefinition(
  db: Executor,
  projectId: string,
  relatedObject: string,
  name: string,
  input: PropertyDefinitionInputT,
  existing: MetadataPropertyDefinition | undefined,
): Promise<MetadataPropertyDefinition> {
  const at = `Property .properties.${name}`;
  const sentKeys = Object.keys(input).filter((k) => input[k as keyof PropertyDefinitionInputT] !== undefined);
  if (existing && input.deleted === true && sentKeys.length === 1) return { ...existing, deleted: true };
  const type = input.type ?? existing?.type;
  if (!type) throw errors.invalidPayload(`${at} should have required property 'type'`);
  if (existing && type !== existing.type) {
    throw errors.invalidPayload(`${at}.type cannot change from ${existing.type} to ${type}; define a new property instead`);
  }
  const def: MetadataPropertyDefinition = {
    type,
    optional: input.optional ?? true,
    array: input.array ?? false,
    object_type: input.object_type ?? null,
  };
  if (input.deleted === true) def.deleted = true;
  for (const key of STRING_ONLY) {
    const value = input[key];
    if (value === undefined || value === null) continue;
    if (type !== 'string') throw errors.invalidPayload(`${at}.${key} applies to type string only, not ${type}`);
    def[key] = value;
  }
  for (const key of NUMBER_ONLY) {
    const value = input[key];
    if (value === undefined || value === null) continue;
    if (type !== 'number') throw errors.invalidPayload(`${at}.${key} applies to type number only, not ${type}`);
    if (key === 'ne') def.ne = value as number[];
    else def[key] = value as number;
  }
  if (input.eq !== undefined && input.eq !== null) {
    if (type !== 'string' && type !== 'number') throw errors.invalidPayload(`${at}.eq applies to types string and number only, not ${type}`);
    const wrong = input.eq.findIndex((v) => typeof v !== type);
    if (wrong >= 0) throw errors.invalidPayload(`${at}.eq[${wrong}] should be ${type}`);
    def.eq = input.eq;
  }
  if (def.min_length != null && def.max_length != null && def.min_length > def.max_length) {
    throw errors.invalidPayload(`${at}.min_length (${def.min_length}) must be <= max_length (${def.max_length})`);
  }
  if (def.object_type !== null && def.object_type !== undefined) {
    if (type !== 'object') throw errors.invalidPayload(`${at}.object_type applies to type object only, not ${type}`);
    if (def.object_type === relatedObject) throw errors.invalidPayload(`${at}.object_type cannot name the schema itself (${relatedObject})`);
    if (!(await store.findMetadataSchemaFor(db, projectId, def.object_type))) {
      throw errors.invalidPayload(`${at}.object_type names no metadata schema of this project: ${def.object_type}`);
    }
  }
  return def;
}

async function normalizeDefinitions(
  db: Executor,
  projectId: string,
  relatedObject: string,
  input: Record<string, PropertyDefinitionInputT>,
  existing: Definitions,
): Promise<Definitions> {
  const out: Definitions = { ...existing };
  for (const [name, definition] of Object.entries(input)) {
    out[name] = await normalizeDefinition(db, projectId, relatedObject, name, definition, existing[name]);
  }
  return out;
}

/** Definition as the management API shows it: the fixed members, then the constraints that are set. */
function managementDefinition(def: MetadataPropertyDefinition) {
  return {
    type: def.type,
    optional: def.optional,
    array: def.array,
    object_type: def.object_type ?? null,
    ...(def.deleted ? { deleted: true } : {}),
    ...(def.min_length != null ? { min_length: def.min_length } : {}),
    ...(def.max_length != null ? { max_length: def.max_length } : {}),
    ...(def.exact_length != null ? { exact_length: def.exact_length } : {}),
    ...(def.eq != null ? { eq: [...def.eq] } : {}),
    ...(def.ne != null ? { ne: [...def.ne] } : {}),
    ...(def.lt != null ? { lt: def.lt } : {}),
    ...(def.lte != null ? { lte: def.lte } : {}),
    ...(def.gt != null ? { gt: def.gt } : {}),
    ...(def.gte != null ? { gte: def.gte } : {}),
  };
}

/** The vendor's older camelCase shape, as `GET /v1/metadata-schemas` answers. */
function legacyDefinition(def: MetadataPropertyDefinition) {
  return {
    type: def.type,
    array: def.array,
    optional: def.optional,
    objectType: def.object_type ?? null,
    ...(def.deleted ? { deleted: true } : {}),
    ...(def.min_length != null ? { minLength: def.min_length } : {}),
    ...(def.max_length != null ? { maxLength: def.max_length } : {}),
    ...(def.exact_length != null ? { exactLength: def.exact_length } : {}),
    ...(def.eq != null ? { eq: [...def.eq] } : {}),
    ...(def.ne != null ? { ne: [...def.ne] } : {}),
    ...(def.lt != null ? { lt: def.lt } : {}),
    ...(def.lte != null ? { lte: def.lte } : {}),
    ...(def.gt != null ? { gt: def.gt } : {}),
    ...(def.gte != null ? { gte: def.gte } : {}),
  };
}

function definitionsOf(row: store.MetadataSchemaRow): Definitions {
  return fromJson<Definitions>(row.properties, {});
}

function mapDefinitions<T>(defs: Definitions, render: (def: MetadataPropertyDefinition) => T): Record<string, T> {
  return Object.fromEntries(Object.entries(defs).map(([name, def]) => [name, render(def)]));
}

function baseObject(row: store.MetadataSchemaRow) {
  return {
    id: row.id,
    related_object: row.related_object,
    allow_defined_only: row.allow_defined_only === null ? null : Boolean(row.allow_defined_only),
    created_at: row.created_at,
    updated_at: row.updated_at,
    object: 'metadata_schema' as const,
  };
}

export function toMetadataSchemaObject(row: store.MetadataSchemaRow) {
  const { allow_defined_only, created_at, updated_at, object, ...head } = baseObject(row);
  return { ...head, properties: mapDefinitions(definitionsOf(row), managementDefinition), allow_defined_only, created_at, updated_at, object };
}
export type MetadataSchemaObject = ReturnType<typeof toMetadataSchemaObject>;

function toLegacyObject(row: store.MetadataSchemaRow) {
  const { allow_defined_only, created_at, updated_at, object, ...head } = baseObject(row);
  return { ...head, properties: mapDefinitions(definitionsOf(row), legacyDefinition), allow_defined_only, created_at, updated_at, object };
}

type ManagementActor = Omit<Actor, 'projectId'>;

async function requireProject(db: Executor, projectId: string): Promise<void> {
  if (!(await findProject(db, projectId))) throw errors.notFound('project', projectId);
}

async function requireSchema(db: Executor, projectId: string, id: string): Promise<store.MetadataSchemaRow> {
  const row = await store.findMetadataSchemaById(db, projectId, id);
  if (!row) throw errors.notFound(RESOURCE, id);
  return row;
}

function schemaEvent(deps: Deps, actor: ManagementActor, projectId: string, type: string, schema: MetadataSchemaObject) {
  return makeEvent(deps, { ...actor, projectId }, { type, entityId: schema.id, data: { metadata_schema: schema } });
}

export async function createMetadataSchema(
  deps: Deps,
  actor: ManagementActor,
  projectId: string,
  input: CreateMetadataSchemaInput,
): Promise<MetadataSchemaObject> {
  const duplicate = () => errors.duplicate(RESOURCE, 'related_object', input.related_object);
  try {
    return await inTransaction(deps, async (tx) => {
      await requireProject(tx, projectId);
      await lockProjectRow(tx, projectId);
      if (await store.findMetadataSchemaFor(tx, projectId, input.related_object)) throw duplicate();
      if ((await store.countMetadataSchemas(tx, projectId)) >= MAX_METADATA_SCHEMAS_PER_PROJECT) {
        throw businessError('limit_reached', 'Limit reached', {
          details: `A project can have at most ${MAX_METADATA_SCHEMAS_PER_PROJECT} metadata schemas`,
          resourceType: RESOURCE,
        });
      }
      const properties = await normalizeDefinitions(tx, projectId, input.related_object, input.properties, {});
      const now = deps.clock.now().toISOString();
      const id = deps.ids.next('ms');
      await store.insertMetadataSchema(tx, {
        id,
        project_id: projectId,
        related_object: input.related_object,
        properties: toJson(properties),
        allow_defined_only: input.allow_defined_only ?? false,
        created_at: now,
        updated_at: null,
      });
      const schema = toMetadataSchemaObject(await requireSchema(tx, projectId, id));
      await appendEvents(tx, [schemaEvent(deps, actor, projectId, 'metadata_schema.created', schema)]);
      return schema;
    });
  } catch (error) {
    // Two concurrent creates for one related object: the unique index lets one win.
    if (isUniqueViolation(error)) throw duplicate();
    throw error;
  }
}

export async function listMetadataSchemas(deps: Deps, projectId: string) {
  await requireProject(deps.db, projectId);
  const data = await readableRows(listing(deps, { projectId }, 'metadata_schema'), await store.listMetadataSchemas(deps.db, projectId, MAX_METADATA_SCHEMAS_PER_PROJECT), (some) => some.map(toMetadataSchemaObject));
  return { object: 'list' as const, data_ref: 'data' as const, data, total: data.length };
}

export async function getMetadataSchema(deps: Deps, projectId: string, id: string): Promise<MetadataSchemaObject> {
  await requireProject(deps.db, projectId);
  return toMetadataSchemaObject(await requireSchema(deps.db, projectId, id));
}

/** Adds or replaces the definitions sent (others stay); `deleted: true` soft-removes one. */
export async function updateMetadataSchema(
  deps: Deps,
  actor: ManagementActor,
  projectId: string,
  id: string,
  input: UpdateMetadataSchemaInput,
): Promise<MetadataSchemaObject> {
  return inTransaction(deps, async (tx) => {
    await requireProject(tx, projectId);
    const row = await requireSchema(tx, projectId, id);
    const properties = await normalizeDefinitions(tx, projectId, row.related_object, input.properties ?? {}, definitionsOf(row));
    const changed = await store.updateMetadataSchema(tx, projectId, id, {
      properties: toJson(properties),
      ...(input.allow_defined_only !== undefined ? { allow_defined_only: input.allow_defined_only } : {}),
      updated_at: deps.clock.now().toISOString(),
    });
    if (!changed) throw errors.notFound(RESOURCE, id);
    const schema = toMetadataSchemaObject(await requireSchema(tx, projectId, id));
    await appendEvents(tx, [schemaEvent(deps, actor, projectId, 'metadata_schema.updated', schema)]);
    return schema;
  });
}

/** Removes the schema and all its definitions; metadata already stored on objects stays. */
export async function deleteMetadataSchema(deps: Deps, actor: ManagementActor, projectId: string, id: string): Promise<void> {
  await inTransaction(deps, async (tx) => {
    await requireProject(tx, projectId);
    const row = await requireSchema(tx, projectId, id);
    if (!(await store.deleteMetadataSchema(tx, projectId, id))) throw errors.notFound(RESOURCE, id);
    await appendEvents(tx, [schemaEvent(deps, actor, projectId, 'metadata_schema.deleted', toMetadataSchemaObject(row))]);
  });
}

/** `GET /v1/metadata-schemas`. */
export async function listProjectMetadataSchemas(deps: Deps, projectId: string) {
  const schemas = await readableRows(listing(deps, { projectId }, 'metadata_schema'), await store.listMetadataSchemas(deps.db, projectId, MAX_METADATA_SCHEMAS_PER_PROJECT), (some) => some.map(toLegacyObject));
  return { object: 'list' as const, data_ref: 'schemas' as const, schemas, total: schemas.length };
}

/** `GET /v1/metadata-schemas/{resource}`: by related object (standard or custom name). */
export async function getProjectMetadataSchema(deps: Deps, projectId: string, resource: string) {
  const row = await store.findMetadataSchemaFor(deps.db, projectId, resource);
  if (!row) throw errors.notFound(RESOURCE, resource);
  return toLegacyObject(row);
}

/** Checks one metadata object; `item` prefixes the field names (`[3]` for the fourth item of a bulk request). */
export type MetadataCheck = (metadata: Readonly<Record<string, unknown>> | null | undefined, item?: string) => void;

const NO_SCHEMA: MetadataCheck = () => undefined;

/**
 * Loads the project's schema for `relatedObject` once and answers a check that throws 400
 * `metadata_validation_failed` when a metadata object breaks it (no schema: anything goes). For requests
 * that check many objects before writing any (imports); single writes use assertMetadata. `null`
 * metadata is checked as `{}`, so required properties are enforced on objects created without metadata.
 */
/** `defs`: read the schema through the definitions cache (src/store/definitions.ts). */
export async function metadataCheck(db: Executor, projectId: string, relatedObject: string, defs?: DefinitionsView): Promise<MetadataCheck> {
  const row = await store.findMetadataSchemaFor(db, projectId, relatedObject, defs);
  if (!row) return NO_SCHEMA;
  const definitions = definitionsOf(row);
  const nestedNames = [
    ...new Set(
      Object.values(definitions)
        .map((d) => (d.type === 'object' && !d.deleted ? d.object_type : null))
        .filter((n): n is string => typeof n === 'string'),
    ),
  ];
  const nested = new Map<string, MetadataSchemaDefinition>();
  for (const schema of await store.findMetadataSchemasFor(db, projectId, nestedNames)) {
    nested.set(schema.related_object, { properties: definitionsOf(schema), allow_defined_only: Boolean(schema.allow_defined_only) });
  }
  const schema: MetadataSchemaDefinition = { properties: definitions, allow_defined_only: Boolean(row.allow_defined_only) };
  return (metadata, item) => {
    const problems = metadataProblems(schema, metadata ?? {}, {
      nested: (name) => nested.get(name),
      subject: relatedObject,
      ...(item !== undefined ? { path: item } : {}),
    });
    if (problems.length > 0) {
      throw businessError('metadata_validation_failed', 'Metadata validation failed', {
        details: problems.join('; '),
        resourceType: relatedObject,
      });
    }
  };
}

/**
 * Throws 400 `metadata_validation_failed` when `metadata` breaks the project's schema for `relatedObject`
 * (no schema: anything goes). Call it inside the write's transaction, before the write. `null` metadata
 * is checked as `{}`, so required properties are enforced on objects created without metadata.
 */
export async function assertMetadata(
  db: Executor,
  projectId: string,
  relatedObject: string,
  metadata: Readonly<Record<string, unknown>> | null | undefined,
  defs?: DefinitionsView,
): Promise<void> {
  (await metadataCheck(db, projectId, relatedObject, defs))(metadata);
}
