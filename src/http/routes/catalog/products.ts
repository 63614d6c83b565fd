import type { RouteContext, TypedApp } from '../../route-context.ts';
import * as catalog from '../../../services/catalog/products.ts';
import { actorOf } from '../../plugins/auth.ts';
import { noContent } from '../../reply.ts';
import { errorResponses, NoContent } from '../../../api/common.ts';
import {
  CreateProductBody,
  ForceQuery,
  ProductList,
  ProductObject,
  ProductListQuery,
  ProductParams,
  ProductWithSkus,
  UpdateProductBody,
} from '../../../api/products.ts';

const tags = ['Products'];

export function registerProductRoutes(app: TypedApp, { deps }: RouteContext): void {
  app.post(
    '/v1/products',
    {
      schema: {
        tags,
        operationId: 'createProduct',
        summary: 'Create a product; an existing id or source_id updates that product instead (upsert)',
        body: CreateProductBody,
        response: { 200: ProductObject, ...errorResponses(404, 409) },
      },
    },
    async (request) => catalog.upsertProduct(deps, actorOf(request), request.body),
  );

  app.get(
    '/v1/products',
    {
      schema: {
        tags,
        operationId: 'listProducts',
        summary: 'List live products, oldest first unless ordered otherwise, each with its first SKUs; `name` finds them by name',
        querystring: ProductListQuery,
        response: { 200: ProductList, ...errorResponses() },
      },
    },
    async (request) => {
      const { products, total } = await catalog.listProducts(deps, actorOf(request).projectId, request.query);
      return { object: 'list' as const, data_ref: 'products' as const, products, total };
    },
  );

  app.get(
    '/v1/products/:productId',
    {
      schema: {
        tags,
        operationId: 'getProduct',
        summary: 'Get a product by id or source_id, with its SKUs',
        params: ProductParams,
        response: { 200: ProductWithSkus, ...errorResponses(404) },
      },
    },
    async (request) => catalog.getProduct(deps, actorOf(request).projectId, request.params.productId),
  );

  app.put(
    '/v1/products/:productId',
    {
      schema: {
        tags,
        operationId: 'updateProduct',
        summary: 'Update a product; members not sent stay as they are',
        params: ProductParams,
        body: UpdateProductBody,
        response: { 200: ProductObject, ...errorResponses(404) },
      },
    },
    async (request) => catalog.updateProduct(deps, actorOf(request), request.params.productId, request.body),
  );

  app.delete(
    '/v1/products/:productId',
    {
      schema: {
        tags,
        operationId: 'deleteProduct',
        summary: 'Delete a product with all its SKUs: to the bin (its source_id is free at once), or for good with force=true',
        params: ProductParams,
        querystring: ForceQuery,
        response: { 204: NoContent, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      await catalog.deleteProduct(deps, actorOf(request), request.params.productId, request.query.force === true);
      return noContent(reply);
    },
  );
}
