import type { RouteContext, TypedApp } from '../../route-context.ts';
import * as collections from '../../../services/product-collections/product-collections.ts';
import { actorOf } from '../../plugins/auth.ts';
import { noContent } from '../../reply.ts';
import { errorResponses, NoContent } from '../../../api/common.ts';
import {
  CollectionProductList,
  CreateProductCollectionBody,
  ListCollectionProductsQuery,
  ListProductCollectionsQuery,
  ProductCollectionList,
  ProductCollectionObject,
  ProductCollectionParams,
} from '../../../api/product-collections.ts';

const tags = ['Product Collections'];

export function registerProductCollectionRoutes(app: TypedApp, { deps }: RouteContext): void {
  app.post(
    '/v1/product-collections',
    {
      schema: {
        tags,
        operationId: 'createProductCollection',
        summary: 'Create a product collection: STATIC (listed products and SKUs) or AUTO_UPDATE (products matching a filter)',
        body: CreateProductCollectionBody,
        response: { 200: ProductCollectionObject, ...errorResponses(404) },
      },
    },
    async (request) => collections.createCollection(deps, actorOf(request), request.body),
  );

  app.get(
    '/v1/product-collections',
    {
      schema: {
        tags,
        operationId: 'listProductCollections',
        summary: 'List product collections, oldest first unless ordered otherwise',
        querystring: ListProductCollectionsQuery,
        response: { 200: ProductCollectionList, ...errorResponses() },
      },
    },
    async (request) => collections.listCollections(deps, actorOf(request), request.query),
  );

  app.get(
    '/v1/product-collections/:productCollectionId',
    {
      schema: {
        tags,
        operationId: 'getProductCollection',
        summary: 'Get a product collection',
        params: ProductCollectionParams,
        response: { 200: ProductCollectionObject, ...errorResponses(404) },
      },
    },
    async (request) => collections.getCollection(deps, actorOf(request), request.params.productCollectionId),
  );

  app.delete(
    '/v1/product-collections/:productCollectionId',
    {
      schema: {
        tags,
        operationId: 'deleteProductCollection',
        summary: 'Delete a product collection; one a validation rule uses is 400 resource_in_use',
        params: ProductCollectionParams,
        response: { 204: NoContent, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      await collections.deleteCollection(deps, actorOf(request), request.params.productCollectionId);
      return noContent(reply);
    },
  );

  app.get(
    '/v1/product-collections/:productCollectionId/products',
    {
      schema: {
        tags,
        operationId: 'listProductCollectionProducts',
        summary: 'List the live products and SKUs of a collection, with pages and a created_at cursor',
        params: ProductCollectionParams,
        querystring: ListCollectionProductsQuery,
        response: { 200: CollectionProductList, ...errorResponses(404) },
      },
    },
    async (request) =>
      collections.listCollectionProducts(deps, actorOf(request), request.params.productCollectionId, request.query),
  );
}
