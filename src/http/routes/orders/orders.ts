import type { RouteContext, TypedApp } from '../../route-context.ts';
import { enqueueOrdersImport } from '../../../services/bulk/bulk.ts';
import { createScopedExport } from '../../../services/exports/exports.ts';
import * as orders from '../../../services/orders/orders.ts';
import { actorOf } from '../../plugins/auth.ts';
import { AsyncActionCreated, OrdersImportBody } from '../../../api/bulk.ts';
import { errorResponses, IdParams } from '../../../api/common.ts';
import { ExportObject, ScopedExportBody } from '../../../api/exports.ts';
import { CreateOrderBody, ListOrdersQuery, OrderList, OrderObject, UpdateOrderBody } from '../../../api/orders.ts';

const tags = ['Orders'];
const OrderParams = IdParams('orderId', 'Order id (ord_…) or source_id');

export function registerOrderRoutes(app: TypedApp, ctx: RouteContext): void {
  const { deps } = ctx;

  app.post(
    '/v1/orders',
    {
      schema: {
        tags,
        operationId: 'createOrder',
        summary: 'Create an order (CREATED unless status says otherwise), or update the one the body names by id or source_id',
        body: CreateOrderBody,
        response: { 200: OrderObject, ...errorResponses(404, 409) },
      },
    },
    async (request) => orders.upsertOrder(deps, actorOf(request), request.body),
  );

  app.get(
    '/v1/orders',
    {
      schema: {
        tags,
        operationId: 'listOrders',
        summary: 'List orders, oldest first by default, in pages',
        querystring: ListOrdersQuery,
        response: { 200: OrderList, ...errorResponses() },
      },
    },
    async (request) => orders.listOrders(deps, actorOf(request), request.query),
  );

  app.get(
    '/v1/orders/:orderId',
    {
      schema: {
        tags,
        operationId: 'getOrder',
        summary: 'Get an order by id or source_id',
        params: OrderParams,
        response: { 200: OrderObject, ...errorResponses(404) },
      },
    },
    async (request) => orders.getOrder(deps, actorOf(request), request.params.orderId),
  );

  app.put(
    '/v1/orders/:orderId',
    {
      schema: {
        tags,
        operationId: 'updateOrder',
        summary: 'Update an order; only the members sent change, items sent replace the lines',
        params: OrderParams,
        body: UpdateOrderBody,
        response: { 200: OrderObject, ...errorResponses(404, 409) },
      },
    },
    async (request) => orders.updateOrder(deps, actorOf(request), request.params.orderId, request.body),
  );

  // The vendor answers 200 here (not 202) with the async action id (platform reference 8.3).
  app.post(
    '/v1/orders/import',
    {
      config: { bulk: true },
      schema: {
        tags,
        operationId: 'importOrders',
        summary: 'Import historical orders in the background (async action ORDERS.IMPORT): no earning rules, activities or webhooks',
        body: OrdersImportBody,
        response: { 200: AsyncActionCreated, ...errorResponses(413, 429) },
      },
    },
    async (request) => enqueueOrdersImport(deps, actorOf(request), request.body),
  );

  app.post(
    '/v1/orders/export',
    {
      schema: {
        tags,
        operationId: 'exportOrders',
        summary: 'Schedule a CSV export of orders (the same export as POST /v1/exports with exported_object order)',
        body: ScopedExportBody,
        response: { 200: ExportObject, ...errorResponses() },
      },
    },
    async (request) => createScopedExport(deps, actorOf(request), 'order', request.body, {}),
  );
}
