import type { RouteContext, TypedApp } from '../../route-context.ts';
import * as categories from '../../../services/catalog/categories.ts';
import { actorOf } from '../../plugins/auth.ts';
import { noContent } from '../../reply.ts';
import { CategoryList, CategoryListQuery, CategoryObject, CategoryParams, CreateCategoryBody, UpdateCategoryBody } from '../../../api/categories.ts';
import { errorResponses, NoContent } from '../../../api/common.ts';

const tags = ['Categories'];

export function registerCategoryRoutes(app: TypedApp, { deps }: RouteContext): void {
  app.get(
    '/v1/categories',
    {
      schema: {
        tags,
        operationId: 'listCategories',
        summary: 'List categories, newest first',
        querystring: CategoryListQuery,
        response: { 200: CategoryList, ...errorResponses() },
      },
    },
    async (request) => {
      const page = await categories.listCategories(deps, actorOf(request).projectId, request.query);
      const last = page.data[page.data.length - 1];
      return {
        object: 'list' as const,
        data_ref: 'data' as const,
        data: page.data,
        total: page.total,
        has_more: page.hasMore,
        ...(page.hasMore && last ? { more_starting_after: last.id } : {}),
      };
    },
  );

  app.post(
    '/v1/categories',
    {
      schema: {
        tags,
        operationId: 'createCategory',
        summary: 'Create a category; names are unique within the project',
        body: CreateCategoryBody,
        response: { 200: CategoryObject, ...errorResponses(409) },
      },
    },
    async (request) => categories.createCategory(deps, actorOf(request), request.body),
  );

  app.get(
    '/v1/categories/:categoryId',
    {
      schema: {
        tags,
        operationId: 'getCategory',
        summary: 'Get a category',
        params: CategoryParams,
        response: { 200: CategoryObject, ...errorResponses(404) },
      },
    },
    async (request) => categories.getCategory(deps, actorOf(request).projectId, request.params.categoryId),
  );

  app.put(
    '/v1/categories/:categoryId',
    {
      schema: {
        tags,
        operationId: 'updateCategory',
        summary: 'Update a category (name and hierarchy are both required)',
        params: CategoryParams,
        body: UpdateCategoryBody,
        response: { 200: CategoryObject, ...errorResponses(404, 409) },
      },
    },
    async (request) => categories.updateCategory(deps, actorOf(request), request.params.categoryId, request.body),
  );

  app.delete(
    '/v1/categories/:categoryId',
    {
      schema: {
        tags,
        operationId: 'deleteCategory',
        summary: 'Delete a category',
        params: CategoryParams,
        response: { 204: NoContent, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      await categories.deleteCategory(deps, actorOf(request), request.params.categoryId);
      return noContent(reply);
    },
  );
}
