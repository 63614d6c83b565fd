import type { RouteContext, TypedApp } from '../../route-context.ts';
import * as bulk from '../../../services/bulk/bulk.ts';
import { actorOf } from '../../plugins/auth.ts';
import { AsyncActionCreated, CustomersBulkBody, MetadataBulkBody, ProductsBulkBody, ProductsMetadataBulkBody, VouchersBulkBody, VouchersMetadataBulkBody } from '../../../api/bulk.ts';
import { errorResponses } from '../../../api/common.ts';

// 202 with the async action id; the work runs in the worker. `config.bulk` makes these calls count
// against the project's bulk rate limit.

export function registerBulkRoutes(app: TypedApp, { deps }: RouteContext): void {
  app.post(
    '/v1/customers/bulk/async',
    {
      config: { bulk: true },
      schema: {
        tags: ['Customers'],
        operationId: 'updateCustomersInBulk',
        summary: 'Create or update many customers by source_id in the background (async action CUSTOMERS.BULK_UPDATE)',
        body: CustomersBulkBody,
        response: { 202: AsyncActionCreated, ...errorResponses(413, 429) },
      },
    },
    async (request, reply) => reply.code(202).send(await bulk.enqueueCustomersBulkUpdate(deps, actorOf(request), request.body)),
  );

  app.post(
    '/v1/customers/metadata/async',
    {
      config: { bulk: true },
      schema: {
        tags: ['Customers'],
        operationId: 'updateCustomersMetadataInBulk',
        summary: 'Merge metadata into many customers by source_id in the background (async action CUSTOMERS.METADATA_UPDATE)',
        body: MetadataBulkBody,
        response: { 202: AsyncActionCreated, ...errorResponses(413, 429) },
      },
    },
    async (request, reply) => reply.code(202).send(await bulk.enqueueCustomersMetadataUpdate(deps, actorOf(request), request.body)),
  );

  app.post(
    '/v1/products/bulk/async',
    {
      config: { bulk: true },
      schema: {
        tags: ['Products'],
        operationId: 'updateProductsInBulk',
        summary: 'Create or update many products by source_id in the background (async action PRODUCTS.BULK_UPDATE)',
        body: ProductsBulkBody,
        response: { 202: AsyncActionCreated, ...errorResponses(413, 429) },
      },
    },
    async (request, reply) => reply.code(202).send(await bulk.enqueueProductsBulkUpdate(deps, actorOf(request), request.body)),
  );

  app.post(
    '/v1/products/metadata/async',
    {
      config: { bulk: true },
      schema: {
        tags: ['Products'],
        operationId: 'updateProductsMetadataInBulk',
        summary: 'Merge metadata into many products by source_id or id in the background (async action PRODUCTS.METADATA_UPDATE)',
        body: ProductsMetadataBulkBody,
        response: { 202: AsyncActionCreated, ...errorResponses(413, 429) },
      },
    },
    async (request, reply) => reply.code(202).send(await bulk.enqueueProductsMetadataUpdate(deps, actorOf(request), request.body)),
  );

  app.post(
    '/v1/vouchers/bulk/async',
    {
      config: { bulk: true },
      schema: {
        tags: ['Vouchers'],
        operationId: 'updateVouchersInBulk',
        summary: 'Merge metadata into many vouchers by code, each its own, in the background (async action VOUCHERS.BULK_UPDATE)',
        body: VouchersBulkBody,
        response: { 202: AsyncActionCreated, ...errorResponses(413, 429) },
      },
    },
    async (request, reply) => reply.code(202).send(await bulk.enqueueVouchersBulkUpdate(deps, actorOf(request), request.body)),
  );

  app.post(
    '/v1/vouchers/metadata/async',
    {
      config: { bulk: true },
      schema: {
        tags: ['Vouchers'],
        operationId: 'updateVouchersMetadataInBulk',
        summary: 'Merge the same metadata into many vouchers by code in the background (async action VOUCHERS.METADATA_UPDATE)',
        body: VouchersMetadataBulkBody,
        response: { 202: AsyncActionCreated, ...errorResponses(413, 429) },
      },
    },
    async (request, reply) => reply.code(202).send(await bulk.enqueueVouchersMetadataUpdate(deps, actorOf(request), request.body)),
  );
}
