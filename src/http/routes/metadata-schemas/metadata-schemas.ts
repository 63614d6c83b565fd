import type { RouteContext, TypedApp } from '../../route-context.ts';
import * as schemas from '../../../services/metadata-schemas/metadata-schemas.ts';
import { actorOf, managementActorOf } from '../../plugins/auth.ts';
import { noContent } from '../../reply.ts';
import { errorResponses, IdParams, NoContent } from '../../../api/common.ts';
import {
  CreateMetadataSchemaBody,
  LegacyMetadataSchemaList,
  LegacyMetadataSchemaObject,
  MetadataSchemaList,
  MetadataSchemaObject,
  MetadataSchemaParams,
  ResourceParams,
  UpdateMetadataSchemaBody,
} from '../../../api/metadata-schemas.ts';

const managementTags = ['Management: metadata schemas'];
const tags = ['Metadata schemas'];
const ProjectParams = IdParams('projectId', 'Project id (proj_…)');

export function registerMetadataSchemaRoutes(app: TypedApp, { deps }: RouteContext): void {
  app.post(
    '/management/v1/projects/:projectId/metadata-schemas',
    {
      schema: {
        tags: managementTags,
        operationId: 'createMetadataSchema',
        summary: 'Define the metadata schema of a related object (one per related object; 409 when it exists)',
        params: ProjectParams,
        body: CreateMetadataSchemaBody,
        response: { 200: MetadataSchemaObject, ...errorResponses(404, 409) },
      },
    },
    async (request) => schemas.createMetadataSchema(deps, managementActorOf(request), request.params.projectId, request.body),
  );

  app.get(
    '/management/v1/projects/:projectId/metadata-schemas',
    {
      schema: {
        tags: managementTags,
        operationId: 'listMetadataSchemas',
        summary: 'List the metadata schemas of a project',
        params: ProjectParams,
        response: { 200: MetadataSchemaList, ...errorResponses(404) },
      },
    },
    async (request) => schemas.listMetadataSchemas(deps, request.params.projectId),
  );

  app.get(
    '/management/v1/projects/:projectId/metadata-schemas/:metadataSchemaId',
    {
      schema: {
        tags: managementTags,
        operationId: 'getMetadataSchema',
        summary: 'Get a metadata schema by id',
        params: MetadataSchemaParams,
        response: { 200: MetadataSchemaObject, ...errorResponses(404) },
      },
    },
    async (request) => schemas.getMetadataSchema(deps, request.params.projectId, request.params.metadataSchemaId),
  );

  app.put(
    '/management/v1/projects/:projectId/metadata-schemas/:metadataSchemaId',
    {
      schema: {
        tags: managementTags,
        operationId: 'updateMetadataSchema',
        summary: 'Update a metadata schema: add or replace the definitions sent (others stay; a type cannot change); deleted:true soft-removes one',
        params: MetadataSchemaParams,
        body: UpdateMetadataSchemaBody,
        response: { 200: MetadataSchemaObject, ...errorResponses(404) },
      },
    },
    async (request) =>
      schemas.updateMetadataSchema(deps, managementActorOf(request), request.params.projectId, request.params.metadataSchemaId, request.body),
  );

  app.delete(
    '/management/v1/projects/:projectId/metadata-schemas/:metadataSchemaId',
    {
      schema: {
        tags: managementTags,
        operationId: 'deleteMetadataSchema',
        summary: 'Delete a metadata schema with all its definitions (metadata stored on objects stays)',
        params: MetadataSchemaParams,
        response: { 204: NoContent, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      await schemas.deleteMetadataSchema(deps, managementActorOf(request), request.params.projectId, request.params.metadataSchemaId);
      return noContent(reply);
    },
  );

  app.get(
    '/v1/metadata-schemas',
    {
      schema: {
        tags,
        operationId: 'listProjectMetadataSchemas',
        summary: 'List the metadata schemas of the project (vendor camelCase definition shape)',
        response: { 200: LegacyMetadataSchemaList, ...errorResponses() },
      },
    },
    async (request) => schemas.listProjectMetadataSchemas(deps, actorOf(request).projectId),
  );

  app.get(
    '/v1/metadata-schemas/:resource',
    {
      schema: {
        tags,
        operationId: 'getProjectMetadataSchema',
        summary: 'Get the metadata schema of a related object (customer, product, … or a custom name)',
        params: ResourceParams,
        response: { 200: LegacyMetadataSchemaObject, ...errorResponses(404) },
      },
    },
    async (request) => schemas.getProjectMetadataSchema(deps, actorOf(request).projectId, request.params.resource),
  );
}
