import Type from 'typebox';
import type { RouteContext, TypedApp } from '../../route-context.ts';
import * as consents from '../../../services/consents/consents.ts';
import { actorOf, managementActorOf } from '../../plugins/auth.ts';
import { noContent } from '../../reply.ts';
import { errorResponses, IdParams, NoContent } from '../../../api/common.ts';
import {
  ConsentBody,
  ConsentGroupBody,
  ConsentGroupList,
  ConsentGroupObject,
  ConsentGroupUpdateBody,
  ConsentList,
  ConsentObject,
  ConsentsListResponse,
  ConsentUpdateBody,
  CustomerConsentList,
  CustomerConsentsBody,
} from '../../../api/consents.ts';

// Consents: listed on both API sides (vendor consents.list, client listConsents), a customer's answers
// (vendor customers.updateConsents and its client-side form, answered 204 like the SDK expects no body),
// and, as the vendor's dashboard does, defined per project through the management API (a Punchcard
// extension, like the read of a customer's answers).

const CustomerParams = IdParams('customerId', 'Customer id (cust_…) or source_id');
const ProjectParams = IdParams('projectId', 'Project id (proj_…)');
const ConsentParams = Type.Object({ projectId: Type.String({ minLength: 1 }), consentId: Type.String({ minLength: 1, description: 'cnst_…' }) });
const GroupParams = Type.Object({ projectId: Type.String({ minLength: 1 }), consentGroupId: Type.String({ minLength: 1, description: 'cngr_…' }) });
const managementTags = ['Management: consents'];

export function registerConsentRoutes(app: TypedApp, { deps }: RouteContext): void {
  for (const [path, operationId, tags] of [
    ['/v1/consents', 'listConsents', ['Consents']],
    ['/client/v1/consents', 'listConsentsClientSide', ['Client-side']],
  ] as const) {
    app.get(
      path,
      {
        schema: {
          tags: [...tags],
          operationId,
          summary: "List the project's consent groups and consents",
          response: { 200: ConsentsListResponse, ...errorResponses() },
        },
      },
      async (request) => consents.listConsents(deps, actorOf(request)),
    );
  }

  for (const [path, operationId, tags] of [
    ['/v1/customers/:customerId/consents', 'updateCustomerConsents', ['Customers']],
    ['/client/v1/customers/:customerId/consents', 'updateCustomerConsentsClientSide', ['Client-side']],
  ] as const) {
    app.put(
      path,
      {
        schema: {
          tags: [...tags],
          operationId,
          summary: "Record a customer's answers: consent id → true (opt in) or false (opt out); unsubscribed: true withdraws every consent first",
          params: CustomerParams,
          body: CustomerConsentsBody,
          response: { 204: NoContent, ...errorResponses(404) },
        },
      },
      async (request, reply) => {
        await consents.updateCustomerConsents(deps, actorOf(request), request.params.customerId, request.body);
        return noContent(reply);
      },
    );
  }

  app.get(
    '/v1/customers/:customerId/consents',
    {
      schema: {
        tags: ['Customers'],
        operationId: 'listCustomerConsents',
        summary: "A customer's answer to each consent they answered (a Punchcard extension, for preference pages)",
        params: CustomerParams,
        response: { 200: CustomerConsentList, ...errorResponses(404) },
      },
    },
    async (request) => consents.customerConsents(deps, actorOf(request), request.params.customerId),
  );

  // ---- definitions (management API) ----

  app.post(
    '/management/v1/projects/:projectId/consents',
    {
      schema: { tags: managementTags, operationId: 'createConsent', summary: 'Create a consent', params: ProjectParams, body: ConsentBody, response: { 200: ConsentObject, ...errorResponses(404) } },
    },
    async (request) => consents.createConsent(deps, managementActorOf(request), request.params.projectId, request.body),
  );
  app.get(
    '/management/v1/projects/:projectId/consents',
    { schema: { tags: managementTags, operationId: 'listProjectConsents', summary: "List a project's consents", params: ProjectParams, response: { 200: ConsentList, ...errorResponses(404) } } },
    async (request) => consents.listProjectConsents(deps, request.params.projectId),
  );
  app.get(
    '/management/v1/projects/:projectId/consents/:consentId',
    { schema: { tags: managementTags, operationId: 'getConsent', summary: 'Get a consent', params: ConsentParams, response: { 200: ConsentObject, ...errorResponses(404) } } },
    async (request) => consents.getConsent(deps, request.params.projectId, request.params.consentId),
  );
  app.put(
    '/management/v1/projects/:projectId/consents/:consentId',
    {
      schema: {
        tags: managementTags,
        operationId: 'updateConsent',
        summary: 'Update a consent; only the members sent change',
        params: ConsentParams,
        body: ConsentUpdateBody,
        response: { 200: ConsentObject, ...errorResponses(404) },
      },
    },
    async (request) => consents.updateConsent(deps, managementActorOf(request), request.params.projectId, request.params.consentId, request.body),
  );
  app.delete(
    '/management/v1/projects/:projectId/consents/:consentId',
    {
      schema: {
        tags: managementTags,
        operationId: 'deleteConsent',
        summary: "Delete a consent, every customer's answer to it and its place in groups",
        params: ConsentParams,
        response: { 204: NoContent, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      await consents.deleteConsent(deps, managementActorOf(request), request.params.projectId, request.params.consentId);
      return noContent(reply);
    },
  );

  app.post(
    '/management/v1/projects/:projectId/consent-groups',
    {
      schema: {
        tags: managementTags,
        operationId: 'createConsentGroup',
        summary: 'Create a consent group of existing consents',
        params: ProjectParams,
        body: ConsentGroupBody,
        response: { 200: ConsentGroupObject, ...errorResponses(404) },
      },
    },
    async (request) => consents.createConsentGroup(deps, managementActorOf(request), request.params.projectId, request.body),
  );
  app.get(
    '/management/v1/projects/:projectId/consent-groups',
    {
      schema: { tags: managementTags, operationId: 'listConsentGroups', summary: "List a project's consent groups", params: ProjectParams, response: { 200: ConsentGroupList, ...errorResponses(404) } },
    },
    async (request) => consents.listProjectConsentGroups(deps, request.params.projectId),
  );
  app.get(
    '/management/v1/projects/:projectId/consent-groups/:consentGroupId',
    { schema: { tags: managementTags, operationId: 'getConsentGroup', summary: 'Get a consent group', params: GroupParams, response: { 200: ConsentGroupObject, ...errorResponses(404) } } },
    async (request) => consents.getConsentGroup(deps, request.params.projectId, request.params.consentGroupId),
  );
  app.put(
    '/management/v1/projects/:projectId/consent-groups/:consentGroupId',
    {
      schema: {
        tags: managementTags,
        operationId: 'updateConsentGroup',
        summary: 'Update a consent group; only the members sent change',
        params: GroupParams,
        body: ConsentGroupUpdateBody,
        response: { 200: ConsentGroupObject, ...errorResponses(404) },
      },
    },
    async (request) => consents.updateConsentGroup(deps, managementActorOf(request), request.params.projectId, request.params.consentGroupId, request.body),
  );
  app.delete(
    '/management/v1/projects/:projectId/consent-groups/:consentGroupId',
    {
      schema: { tags: managementTags, operationId: 'deleteConsentGroup', summary: 'Delete a consent group (its consents stay)', params: GroupParams, response: { 204: NoContent, ...errorResponses(404) } },
    },
    async (request, reply) => {
      await consents.deleteConsentGroup(deps, managementActorOf(request), request.params.projectId, request.params.consentGroupId);
      return noContent(reply);
    },
  );
}
