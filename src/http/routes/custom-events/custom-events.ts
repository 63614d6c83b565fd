import type { RouteContext, TypedApp } from '../../route-context.ts';
import * as schemas from '../../../services/custom-events/schemas.ts';
import { trackCustomEvent } from '../../../services/custom-events/track.ts';
import { actorOf, managementActorOf } from '../../plugins/auth.ts';
import { noContent } from '../../reply.ts';
import { errorResponses, IdParams, NoContent } from '../../../api/common.ts';
import {
  CreateCustomEventSchemaBody,
  CustomEventBody,
  CustomEventResponse,
  CustomEventSchemaList,
  CustomEventSchemaObject,
  CustomEventSchemaParams,
  UpdateCustomEventSchemaBody,
} from '../../../api/custom-events.ts';

const managementTags = ['Management: custom event schemas'];
const ProjectParams = IdParams('projectId', 'Project id (proj_…)');

export function registerCustomEventRoutes(app: TypedApp, { deps }: RouteContext): void {
  app.post(
    '/management/v1/projects/:projectId/custom-event-schemas',
    {
      schema: {
        tags: managementTags,
        operationId: 'createCustomEventSchema',
        summary: 'Define a custom event and the properties of its metadata (name unique per project)',
        params: ProjectParams,
        body: CreateCustomEventSchemaBody,
        response: { 200: CustomEventSchemaObject, ...errorResponses(404, 409) },
      },
    },
    async (request) => schemas.createCustomEventSchema(deps, managementActorOf(request), request.params.projectId, request.body),
  );

  app.get(
    '/management/v1/projects/:projectId/custom-event-schemas',
    {
      schema: {
        tags: managementTags,
        operationId: 'listCustomEventSchemas',
        summary: 'List the custom event schemas of a project',
        params: ProjectParams,
        response: { 200: CustomEventSchemaList, ...errorResponses(404) },
      },
    },
    async (request) => schemas.listCustomEventSchemas(deps, request.params.projectId),
  );

  app.get(
    '/management/v1/projects/:projectId/custom-event-schemas/:customEventSchemaId',
    {
      schema: {
        tags: managementTags,
        operationId: 'getCustomEventSchema',
        summary: 'Get a custom event schema',
        params: CustomEventSchemaParams,
        response: { 200: CustomEventSchemaObject, ...errorResponses(404) },
      },
    },
    async (request) => schemas.getCustomEventSchema(deps, request.params.projectId, request.params.customEventSchemaId),
  );

  app.put(
    '/management/v1/projects/:projectId/custom-event-schemas/:customEventSchemaId',
    {
      schema: {
        tags: managementTags,
        operationId: 'updateCustomEventSchema',
        summary: 'Add or change properties (others stay); deleted:true soft-removes one',
        params: CustomEventSchemaParams,
        body: UpdateCustomEventSchemaBody,
        response: { 200: CustomEventSchemaObject, ...errorResponses(404) },
      },
    },
    async (request) =>
      schemas.updateCustomEventSchema(deps, managementActorOf(request), request.params.projectId, request.params.customEventSchemaId, request.body),
  );

  app.delete(
    '/management/v1/projects/:projectId/custom-event-schemas/:customEventSchemaId',
    {
      schema: {
        tags: managementTags,
        operationId: 'deleteCustomEventSchema',
        summary: 'Delete a custom event schema; events of that name are refused from then on',
        params: CustomEventSchemaParams,
        response: { 204: NoContent, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      await schemas.deleteCustomEventSchema(deps, managementActorOf(request), request.params.projectId, request.params.customEventSchemaId);
      return noContent(reply);
    },
  );

  app.post(
    '/v1/events',
    {
      schema: {
        tags: ['Events'],
        operationId: 'trackCustomEvent',
        summary: 'Track a custom event defined in the project; an unknown customer is created',
        body: CustomEventBody,
        response: { 200: CustomEventResponse, ...errorResponses(404) },
      },
    },
    async (request) => trackCustomEvent(deps, actorOf(request), request.body, 'server'),
  );

  app.post(
    '/client/v1/events',
    {
      schema: {
        tags: ['Client-side'],
        operationId: 'trackCustomEventClientSide',
        summary: 'Track a custom event from a shop page; loyalty and referral parts need client_loyalty_events_enabled',
        body: CustomEventBody,
        response: { 200: CustomEventResponse, ...errorResponses(403, 404) },
      },
    },
    async (request) => trackCustomEvent(deps, actorOf(request), request.body, 'client'),
  );
}
