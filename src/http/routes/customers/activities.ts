import type { RouteContext, TypedApp } from '../../route-context.ts';
import * as activities from '../../../services/customers/activities.ts';
import { actorOf } from '../../plugins/auth.ts';
import { errorResponses, IdParams } from '../../../api/common.ts';
import { ActivitiesList, ActivityList, ListActivitiesQuery, ListActivityQuery } from '../../../api/customers.ts';

const tags = ['Customers'];
const CustomerParams = IdParams('customerId', 'Customer id (cust_…) or source_id');

export function registerCustomerActivityRoutes(app: TypedApp, { deps }: RouteContext): void {
  app.get(
    '/v1/customers/:customerId/activities',
    {
      schema: {
        tags,
        operationId: 'listCustomerActivities',
        summary: "List a customer's activities with a total (the older list; /activity pages with has_more)",
        params: CustomerParams,
        querystring: ListActivitiesQuery,
        response: { 200: ActivitiesList, ...errorResponses(404) },
      },
    },
    async (request) => activities.listActivities(deps, actorOf(request), request.params.customerId, request.query),
  );

  app.get(
    '/v1/customers/:customerId/activity',
    {
      schema: {
        tags,
        operationId: 'listCustomerActivity',
        summary: "List a customer's activities with has_more and an event-id cursor (the vendor's current list)",
        params: CustomerParams,
        querystring: ListActivityQuery,
        response: { 200: ActivityList, ...errorResponses(404) },
      },
    },
    async (request) => activities.listActivity(deps, actorOf(request), request.params.customerId, request.query),
  );
}
