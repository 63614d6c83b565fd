import type { RouteContext, TypedApp } from '../../route-context.ts';
import * as catalog from '../../../services/catalog/products.ts';
import { actorOf } from '../../plugins/auth.ts';
import { noContent } from '../../reply.ts';
import { errorResponses, NoContent } from '../../../api/common.ts';
import {
  CatalogListQuery,
  CreateSkuBody,
  ForceQuery,
  ProductParams,
  ProductSkuParams,
  SkuList,
  SkuObject,
  SkuParams,
  UpdateSkuBody,
} from '../../../api/products.ts';

const tags = ['Products'];

export function registerSkuRoutes(app: TypedApp, { deps }: RouteContext): void {
  app.post(
    '/v1/products/:productId/skus',
    {
      schema: {
        tags,
        operationId: 'createSku',
        summary: "Create a SKU of a product; an existing id or source_id of the product's SKU updates it instead (upsert)",
        params: ProductParams,
        body: CreateSkuBody,
        response: { 200: SkuObject, ...errorResponses(404, 409) },
      },
    },
    async (request) => catalog.upsertSku(deps, actorOf(request), request.params.productId, request.body),
  );

  app.get(
    '/v1/products/:productId/skus',
    {
      schema: {
        tags,
        operationId: 'listSkus',
        summary: 'List the live SKUs of a product, oldest first unless ordered otherwise',
        params: ProductParams,
        querystring: CatalogListQuery,
        response: { 200: SkuList, ...errorResponses(404) },
      },
    },
    async (request) => {
      const { skus, total } = await catalog.listSkus(deps, actorOf(request).projectId, request.params.productId, request.query);
      return { object: 'list' as const, data_ref: 'skus' as const, skus, total };
    },
  );

  app.put(
    '/v1/products/:productId/skus/:skuId',
    {
      schema: {
        tags,
        operationId: 'updateSku',
        summary: 'Update a SKU of a product; members not sent stay as they are',
        params: ProductSkuParams,
        body: UpdateSkuBody,
        response: { 200: SkuObject, ...errorResponses(404) },
      },
    },
    async (request) => catalog.updateSku(deps, actorOf(request), request.params.productId, request.params.skuId, request.body),
  );

  app.delete(
    '/v1/products/:productId/skus/:skuId',
    {
      schema: {
        tags,
        operationId: 'deleteSku',
        summary: 'Delete a SKU: to the bin (its source_id is free at once), or for good with force=true',
        params: ProductSkuParams,
        querystring: ForceQuery,
        response: { 204: NoContent, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const { productId, skuId } = request.params;
      await catalog.deleteSku(deps, actorOf(request), productId, skuId, request.query.force === true);
      return noContent(reply);
    },
  );

  app.get(
    '/v1/skus/:skuId',
    {
      schema: {
        tags,
        operationId: 'getSku',
        summary: 'Get a SKU by id or source_id',
        params: SkuParams,
        response: { 200: SkuObject, ...errorResponses(404) },
      },
    },
    async (request) => catalog.getSku(deps, actorOf(request).projectId, request.params.skuId),
  );
}
