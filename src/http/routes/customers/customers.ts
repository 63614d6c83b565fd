import type { RouteContext, TypedApp } from '../../route-context.ts';
import * as customers from '../../../services/customers/customers.ts';
import { getCustomerWithAssets, rotateCustomerCockpit, withCockpitAsset, withCockpitAssets } from '../../../services/cockpit/customer-assets.ts';
import type { FastifyRequest } from 'fastify';
import { roleAllows } from '../../../domain/auth/roles.ts';
import { scopesAllowPath } from '../../../domain/auth/scopes.ts';
import { actorOf } from '../../plugins/auth.ts';
import { noContent } from '../../reply.ts';
import { errorResponses, IdParams, NoContent } from '../../../api/common.ts';
import {
  ClientCustomerBody,
  CustomerBody,
  CustomerList,
  CustomerObject,
  ListCustomersQuery,
  PermanentDeletion,
  UpdateCustomerBody,
} from '../../../api/customers.ts';
import { registerCustomerActivityRoutes } from './activities.ts';
import { registerCustomerRedeemableRoutes } from './redeemables.ts';

const tags = ['Customers'];

/**
 * Whether the caller gets the customers' cockpit links (src/services/cockpit/customer-assets.ts): only a
 * caller that could itself redeem loyalty rewards and record consents. A client key gets the link of the
 * new customer it created (the shop page's own visitor).
 */
function mayOpenCockpits(request: FastifyRequest): boolean {
  const principal = request.principal;
  switch (principal?.kind) {
    case 'server':
    case 'client':
      return true;
    case 'user':
      return COCKPIT_ACTS.every(([method, route]) => roleAllows(principal.role, method, route));
    case 'bearer':
      return COCKPIT_ACTS.every(([, route]) => scopesAllowPath(principal.scopes, route.replace(/:[A-Za-z]+/g, 'x')));
    default:
      return false;
  }
}

/** What a cockpit link lets its holder do, as the API's own routes. */
const COCKPIT_ACTS = [
  ['POST', '/v1/loyalties/members/:memberId/redemption'],
  ['PUT', '/v1/customers/:customerId/consents'],
] as const;
const CustomerParams = IdParams('customerId', 'Customer id (cust_…) or source_id');

export function registerCustomerRoutes(app: TypedApp, ctx: RouteContext): void {
  const { deps } = ctx;

  app.post(
    '/v1/customers',
    {
      schema: {
        tags,
        operationId: 'createCustomer',
        summary: 'Create a customer, or update the one the body names by id or source_id',
        body: CustomerBody,
        response: { 200: CustomerObject, ...errorResponses(404) },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      return withCockpitAsset(deps, actor.projectId, await customers.upsertCustomer(deps, actor, request.body), mayOpenCockpits(request));
    },
  );

  app.get(
    '/v1/customers',
    {
      schema: {
        tags,
        operationId: 'listCustomers',
        summary: 'List customers, newest first by default, with filters, ordering, pages and a created_at cursor',
        querystring: ListCustomersQuery,
        response: { 200: CustomerList, ...errorResponses() },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const list = await customers.listCustomers(deps, actor, request.query);
      return { ...list, customers: await withCockpitAssets(deps, actor.projectId, list.customers, mayOpenCockpits(request)) };
    },
  );

  app.get(
    '/v1/customers/:customerId',
    {
      schema: {
        tags,
        operationId: 'getCustomer',
        summary: 'Get a customer by id or source_id',
        params: CustomerParams,
        response: { 200: CustomerObject, ...errorResponses(404) },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      return getCustomerWithAssets(deps, actor, request.params.customerId, mayOpenCockpits(request));
    },
  );

  app.put(
    '/v1/customers/:customerId',
    {
      schema: {
        tags,
        operationId: 'updateCustomer',
        summary: 'Update a customer; only the members sent change (id and source_id in the body are ignored)',
        params: CustomerParams,
        body: UpdateCustomerBody,
        response: { 200: CustomerObject, ...errorResponses(404) },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      return withCockpitAsset(deps, actor.projectId, await customers.updateCustomer(deps, actor, request.params.customerId, request.body), mayOpenCockpits(request));
    },
  );

  app.delete(
    '/v1/customers/:customerId',
    {
      schema: {
        tags,
        operationId: 'deleteCustomer',
        summary: 'Delete a customer: it disappears from every read and its source_id is free again; its activities stay',
        params: CustomerParams,
        response: { 204: NoContent, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      await customers.deleteCustomer(deps, actorOf(request), request.params.customerId);
      return noContent(reply);
    },
  );

  app.post(
    '/v1/customers/:customerId/permanent-deletion',
    {
      schema: {
        tags,
        operationId: 'deleteCustomerPermanently',
        summary: 'Erase a customer, their orders and every event naming it, and the person in their redemption records and publications (also after a DELETE, by id); answers what was erased',
        params: CustomerParams,
        response: { 200: PermanentDeletion, ...errorResponses(404) },
      },
    },
    async (request) => customers.permanentlyDeleteCustomer(deps, actorOf(request), request.params.customerId),
  );

  app.post(
    '/client/v1/customers',
    {
      schema: {
        tags: ['Client-side'],
        operationId: 'createCustomerClientSide',
        summary: 'Create a customer from a shop page (client keys); an existing source_id is 409, never overwritten',
        body: ClientCustomerBody,
        response: { 200: CustomerObject, ...errorResponses(403, 409) },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      return withCockpitAsset(deps, actor.projectId, await customers.createCustomerFromClientSide(deps, actor, request.body), mayOpenCockpits(request));
    },
  );

  app.post(
    '/v1/customers/:customerId/cockpit/rotate',
    {
      schema: {
        tags,
        operationId: 'rotateCustomerCockpit',
        summary: "Replace the customer's cockpit links (Punchcard extension): every earlier link stops working; answers the customer with the new assets",
        params: CustomerParams,
        response: { 200: CustomerObject, ...errorResponses(404) },
      },
    },
    async (request) => rotateCustomerCockpit(deps, actorOf(request), request.params.customerId),
  );

  registerCustomerActivityRoutes(app, ctx);
  registerCustomerRedeemableRoutes(app, ctx);
}
