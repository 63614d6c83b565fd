import type { RouteContext, TypedApp } from '../../route-context.ts';
import * as tiers from '../../../services/promotions/tiers.ts';
import { actorOf } from '../../plugins/auth.ts';
import { noContent } from '../../reply.ts';
import { errorResponses, IdParams, NoContent } from '../../../api/common.ts';
import {
  ClientListTiersQuery,
  ListCampaignTiersQuery,
  ListTiersQuery,
  PromotionTierCreateBody,
  PromotionTierList,
  PromotionTierObject,
  PromotionTierUpdateBody,
} from '../../../api/promotions.ts';

const tags = ['Promotions'];
const TierParams = IdParams('promotionTierId', 'Promotion tier id (promo_…)');
const CampaignParams = IdParams('campaignId', 'PROMOTION campaign id (camp_…) or name');

export function registerPromotionTierRoutes(app: TypedApp, { deps }: RouteContext): void {
  app.get(
    '/v1/promotions/tiers',
    {
      schema: {
        tags,
        operationId: 'listPromotionTiers',
        summary: 'List the promotion tiers of all PROMOTION campaigns; is_available=true keeps those usable now',
        querystring: ListTiersQuery,
        response: { 200: PromotionTierList, ...errorResponses() },
      },
    },
    async (request) => tiers.listAllTiers(deps, actorOf(request), request.query),
  );

  app.get(
    '/client/v1/promotions/tiers',
    {
      schema: {
        tags: ['Client-side'],
        operationId: 'listPromotionTiersClientSide',
        summary: 'List promotion tiers from a shop page (client keys and a trusted origin)',
        querystring: ClientListTiersQuery,
        response: { 200: PromotionTierList, ...errorResponses(403) },
      },
    },
    async (request) => tiers.listAllTiers(deps, actorOf(request), request.query),
  );

  app.get(
    '/v1/promotions/:campaignId/tiers',
    {
      schema: {
        tags,
        operationId: 'listCampaignPromotionTiers',
        summary: 'List the tiers of a PROMOTION campaign in the order they apply (hierarchy)',
        params: CampaignParams,
        querystring: ListCampaignTiersQuery,
        response: { 200: PromotionTierList, ...errorResponses(404) },
      },
    },
    async (request) => tiers.listTiersOfCampaign(deps, actorOf(request), request.params.campaignId, request.query),
  );

  app.post(
    '/v1/promotions/:campaignId/tiers',
    {
      schema: {
        tags,
        operationId: 'createPromotionTier',
        summary: 'Add a tier to a PROMOTION campaign; without hierarchy it comes after the highest',
        params: CampaignParams,
        body: PromotionTierCreateBody,
        response: { 200: PromotionTierObject, ...errorResponses(404) },
      },
    },
    async (request) => tiers.createTier(deps, actorOf(request), request.params.campaignId, request.body),
  );

  app.get(
    '/v1/promotions/tiers/:promotionTierId',
    {
      schema: {
        tags,
        operationId: 'getPromotionTier',
        summary: 'Get a promotion tier',
        params: TierParams,
        response: { 200: PromotionTierObject, ...errorResponses(404) },
      },
    },
    async (request) => tiers.getTier(deps, actorOf(request), request.params.promotionTierId),
  );

  app.put(
    '/v1/promotions/tiers/:promotionTierId',
    {
      schema: {
        tags,
        operationId: 'updatePromotionTier',
        summary: 'Update a promotion tier; only the members sent change (an id in the body is ignored)',
        params: TierParams,
        body: PromotionTierUpdateBody,
        response: { 200: PromotionTierObject, ...errorResponses(404) },
      },
    },
    async (request) => tiers.updateTierById(deps, actorOf(request), request.params.promotionTierId, request.body),
  );

  app.delete(
    '/v1/promotions/tiers/:promotionTierId',
    {
      schema: {
        tags,
        operationId: 'deletePromotionTier',
        summary: 'Delete a promotion tier and its rule assignments; a tier used by a stack is 400 resource_in_use',
        params: TierParams,
        response: { 204: NoContent, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      await tiers.deleteTier(deps, actorOf(request), request.params.promotionTierId);
      return noContent(reply);
    },
  );

  for (const [action, active] of [['enable', true], ['disable', false]] as const) {
    app.post(
      `/v1/promotions/tiers/:promotionTierId/${action}`,
      {
        schema: {
          tags,
          operationId: `${action}PromotionTier`,
          summary: active ? 'Enable a promotion tier' : 'Disable a promotion tier: it cannot be used, even inside its dates',
          params: TierParams,
          response: { 200: PromotionTierObject, ...errorResponses(404) },
        },
      },
      async (request) => tiers.setTierActive(deps, actorOf(request), request.params.promotionTierId, active),
    );
  }
}
