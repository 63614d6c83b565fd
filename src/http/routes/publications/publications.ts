import type { RouteContext, TypedApp } from '../../route-context.ts';
import { createPublication, listPublications } from '../../../services/publications/publications.ts';
import { actorOf } from '../../plugins/auth.ts';
import { errorResponses } from '../../../api/common.ts';
import {
  CreatePublicationBody,
  CreatePublicationByQuery,
  CreatePublicationQuery,
  ListPublicationsQuery,
  PublicationList,
  PublicationObject,
} from '../../../api/publications.ts';

const tags = ['Publications'];

export function registerPublicationRoutes(app: TypedApp, { deps }: RouteContext): void {
  app.post(
    '/v1/publications',
    {
      schema: {
        tags,
        operationId: 'createPublication',
        summary: 'Publish a voucher (by code) or up to 50 vouchers of a campaign to a customer',
        querystring: CreatePublicationQuery,
        body: CreatePublicationBody,
        response: { 200: PublicationObject, ...errorResponses(404) },
      },
    },
    async (request) =>
      createPublication(deps, actorOf(request), { ...request.body, join_once: request.query.join_once === true || request.body.join_once === true }),
  );

  // The vendor's publish-by-GET (its SDK calls it so): it writes, so a console session needs its CSRF
  // token and a role that may write to call it (src/http/plugins/auth.ts); API keys call it as before.
  app.get(
    '/v1/publications/create',
    {
      config: { writes: true },
      schema: {
        tags,
        operationId: 'createPublicationWithGet',
        summary: 'Publish one voucher, the request in the query string (customer[source_id]=…&campaign[name]=…); voucher wins over campaign',
        querystring: CreatePublicationByQuery,
        response: { 200: PublicationObject, ...errorResponses(404) },
      },
    },
    async (request) => createPublication(deps, actorOf(request), request.query),
  );

  app.get(
    '/v1/publications',
    {
      schema: {
        tags,
        operationId: 'listPublications',
        summary: 'List publications, newest first by default',
        querystring: ListPublicationsQuery,
        response: { 200: PublicationList, ...errorResponses() },
      },
    },
    async (request) => listPublications(deps, actorOf(request), request.query),
  );
}
