import Type from 'typebox';
import type { RouteContext, TypedApp } from '../../route-context.ts';
import * as stacks from '../../../services/promotions/stacks.ts';
import { actorOf } from '../../plugins/auth.ts';
import { noContent } from '../../reply.ts';
import { errorResponses, IdParams, NoContent } from '../../../api/common.ts';
import {
  CreateStackBody,
  ListCampaignStacksQuery,
  ListStacksQuery,
  PromotionStackList,
  PromotionStackObject,
  UpdateStackBody,
} from '../../../api/promotions.ts';

const tags = ['Promotions'];
const CampaignParams = IdParams('campaignId', 'PROMOTION campaign id (camp_…) or name');
const StackParams = Type.Object({
  campaignId: Type.String({ minLength: 1, description: 'PROMOTION campaign id (camp_…) or name' }),
  stackId: Type.String({ minLength: 1, description: 'stack_…' }),
});

export function registerPromotionStackRoutes(app: TypedApp, { deps }: RouteContext): void {
  app.get(
    '/v1/promotions/stacks',
    {
      schema: {
        tags,
        operationId: 'listPromotionStacks',
        summary: 'List the promotion stacks of all campaigns, newest first by default',
        querystring: ListStacksQuery,
        response: { 200: PromotionStackList, ...errorResponses() },
      },
    },
    async (request) => stacks.listAllStacks(deps, actorOf(request), request.query),
  );

  app.get(
    '/v1/promotions/:campaignId/stacks',
    {
      schema: {
        tags,
        operationId: 'listCampaignPromotionStacks',
        summary: 'List the promotion stacks of a PROMOTION campaign, oldest first',
        params: CampaignParams,
        querystring: ListCampaignStacksQuery,
        response: { 200: PromotionStackList, ...errorResponses(404) },
      },
    },
    async (request) => stacks.listCampaignStacks(deps, actorOf(request), request.params.campaignId, request.query),
  );

  app.post(
    '/v1/promotions/:campaignId/stacks',
    {
      schema: {
        tags,
        operationId: 'createPromotionStack',
        summary: "Create a promotion stack: 1–30 of the campaign's tiers, applied in the order given",
        params: CampaignParams,
        body: CreateStackBody,
        response: { 200: PromotionStackObject, ...errorResponses(404) },
      },
    },
    async (request) => stacks.createStack(deps, actorOf(request), request.params.campaignId, request.body),
  );

  app.get(
    '/v1/promotions/:campaignId/stacks/:stackId',
    {
      schema: {
        tags,
        operationId: 'getPromotionStack',
        summary: 'Get a promotion stack',
        params: StackParams,
        response: { 200: PromotionStackObject, ...errorResponses(404) },
      },
    },
    async (request) => stacks.getStack(deps, actorOf(request), request.params.campaignId, request.params.stackId),
  );

  app.put(
    '/v1/promotions/:campaignId/stacks/:stackId',
    {
      schema: {
        tags,
        operationId: 'updatePromotionStack',
        summary: 'Update a promotion stack; tiers, when sent, replace its list',
        params: StackParams,
        body: UpdateStackBody,
        response: { 200: PromotionStackObject, ...errorResponses(404) },
      },
    },
    async (request) => stacks.updateStack(deps, actorOf(request), request.params.campaignId, request.params.stackId, request.body),
  );

  app.delete(
    '/v1/promotions/:campaignId/stacks/:stackId',
    {
      schema: {
        tags,
        operationId: 'deletePromotionStack',
        summary: 'Delete a promotion stack (its tiers stay)',
        params: StackParams,
        response: { 204: NoContent, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      await stacks.deleteStack(deps, actorOf(request), request.params.campaignId, request.params.stackId);
      return noContent(reply);
    },
  );
}
