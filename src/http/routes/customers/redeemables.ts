import type { RouteContext, TypedApp } from '../../route-context.ts';
import { listCustomerRedeemables } from '../../../services/customers/redeemables.ts';
import { actorOf } from '../../plugins/auth.ts';
import { errorResponses, IdParams } from '../../../api/common.ts';
import { CustomerRedeemableList, CustomerRedeemablesQuery } from '../../../api/customer-redeemables.ts';

const CustomerParams = IdParams('customerId', 'Customer id (cust_…) or source_id');

export function registerCustomerRedeemableRoutes(app: TypedApp, { deps }: RouteContext): void {
  app.get(
    '/v1/customers/:customerId/redeemables',
    {
      schema: {
        tags: ['Customers'],
        operationId: 'listCustomerRedeemables',
        summary: 'List the vouchers a customer holds (as owner, referrer or referee) with their status, newest first, with an id cursor and filters',
        params: CustomerParams,
        querystring: CustomerRedeemablesQuery,
        response: { 200: CustomerRedeemableList, ...errorResponses(404) },
      },
    },
    async (request) => listCustomerRedeemables(deps, actorOf(request), request.params.customerId, request.query),
  );
}
