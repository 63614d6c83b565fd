import type { RouteContext, TypedApp } from '../../route-context.ts';
import * as segments from '../../../services/segments/segments.ts';
import { actorOf } from '../../plugins/auth.ts';
import { noContent } from '../../reply.ts';
import { errorResponses, IdParams, NoContent } from '../../../api/common.ts';
import { CreateSegmentBody, CustomerSegmentList, ListSegmentsQuery, SegmentList, SegmentObject, SegmentParams } from '../../../api/segments.ts';

const tags = ['Segments'];

export function registerSegmentRoutes(app: TypedApp, { deps }: RouteContext): void {
  app.post(
    '/v1/segments',
    {
      schema: {
        tags,
        operationId: 'createSegment',
        summary: 'Create a segment: static (listed customers) or auto-update (customers matching a filter)',
        body: CreateSegmentBody,
        response: { 200: SegmentObject, ...errorResponses(404) },
      },
    },
    async (request) => segments.createSegment(deps, actorOf(request), request.body),
  );

  app.get(
    '/v1/segments',
    {
      schema: {
        tags,
        operationId: 'listSegments',
        summary: 'List segments, newest first by default',
        querystring: ListSegmentsQuery,
        response: { 200: SegmentList, ...errorResponses() },
      },
    },
    async (request) => segments.listSegments(deps, actorOf(request), request.query),
  );

  app.get(
    '/v1/segments/:segmentId',
    {
      schema: {
        tags,
        operationId: 'getSegment',
        summary: 'Get a segment',
        params: SegmentParams,
        response: { 200: SegmentObject, ...errorResponses(404) },
      },
    },
    async (request) => segments.getSegment(deps, actorOf(request), request.params.segmentId),
  );

  app.delete(
    '/v1/segments/:segmentId',
    {
      schema: {
        tags,
        operationId: 'deleteSegment',
        summary: 'Delete a segment and its memberships; a segment a validation rule uses is 400 resource_in_use',
        params: SegmentParams,
        response: { 204: NoContent, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      await segments.deleteSegment(deps, actorOf(request), request.params.segmentId);
      return noContent(reply);
    },
  );

  app.get(
    '/v1/customers/:customerId/segments',
    {
      schema: {
        tags: ['Customers', ...tags],
        operationId: 'listCustomerSegments',
        summary: 'List the segments a customer belongs to',
        params: IdParams('customerId', 'Customer id (cust_…) or source_id'),
        response: { 200: CustomerSegmentList, ...errorResponses(404) },
      },
    },
    async (request) => segments.listCustomerSegments(deps, actorOf(request), request.params.customerId),
  );
}
