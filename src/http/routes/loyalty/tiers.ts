import type { RouteContext, TypedApp } from '../../route-context.ts';
import * as tiers from '../../../services/loyalty/tiers.ts';
import { actorOf } from '../../plugins/auth.ts';
import { errorResponses, IdParams, NoContent } from '../../../api/common.ts';
import { EarningRuleList } from '../../../api/earning-rules.ts';
import { CreateTiersBody, ListTiersQuery, MemberTierParams, PageQuery, TierArray, TierList, TierObject, TierParams, UpdateTierBody } from '../../../api/loyalty-tiers.ts';
import { noContent } from '../../reply.ts';
import { TierRewardList } from '../../../api/rewards.ts';

// Loyalty tiers (loyalty reference 6.1).

const tags = ['Loyalty tiers'];
const CampaignParams = IdParams('campaignId', 'Loyalty campaign id (camp_…) or name');

export function registerTierRoutes(app: TypedApp, { deps }: RouteContext): void {
  app.get(
    '/v1/loyalties/:campaignId/tiers',
    {
      schema: { tags, operationId: 'listLoyaltyTiers', summary: "List a program's tiers", params: CampaignParams, querystring: ListTiersQuery, response: { 200: TierList, ...errorResponses(404) } },
    },
    async (request) => tiers.listTiers(deps, actorOf(request), request.params.campaignId, request.query),
  );

  app.post(
    '/v1/loyalties/:campaignId/tiers',
    {
      schema: {
        tags,
        operationId: 'createLoyaltyTiers',
        summary: 'Create tiers (an array; all or none; ranges may not overlap) and recalculate the members in the background',
        params: CampaignParams,
        body: CreateTiersBody,
        response: { 200: TierArray, ...errorResponses(404) },
      },
    },
    async (request) => tiers.createTiers(deps, actorOf(request), request.params.campaignId, request.body),
  );

  app.get(
    '/v1/loyalties/:campaignId/tiers/:loyaltyTierId',
    {
      schema: { tags, operationId: 'getLoyaltyTier', summary: 'Get a tier', params: TierParams, response: { 200: TierObject, ...errorResponses(404) } },
    },
    async (request) => tiers.getTier(deps, actorOf(request), request.params.campaignId, request.params.loyaltyTierId),
  );

  app.put(
    '/v1/loyalties/:campaignId/tiers/:loyaltyTierId',
    {
      schema: {
        tags,
        operationId: 'updateLoyaltyTier',
        summary: 'Punchcard extension: change a tier (name, points range, mappings) and recalculate the members in the background',
        params: TierParams,
        body: UpdateTierBody,
        response: { 200: TierObject, ...errorResponses(400, 404) },
      },
    },
    async (request) => tiers.updateTierDefinition(deps, actorOf(request), request.params.campaignId, request.params.loyaltyTierId, request.body),
  );

  app.delete(
    '/v1/loyalties/:campaignId/tiers/:loyaltyTierId',
    {
      schema: {
        tags,
        operationId: 'deleteLoyaltyTier',
        summary: 'Punchcard extension: delete a tier (refused while an earning rule triggers on it); its members are recalculated in the background',
        params: TierParams,
        response: { 204: NoContent, ...errorResponses(400, 404) },
      },
    },
    async (request, reply) => {
      await tiers.deleteTierDefinition(deps, actorOf(request), request.params.campaignId, request.params.loyaltyTierId);
      return noContent(reply);
    },
  );

  app.get(
    '/v1/loyalties/:campaignId/tiers/:loyaltyTierId/earning-rules',
    {
      schema: {
        tags,
        operationId: 'listLoyaltyTierEarningRules',
        summary: "The program's earning rules with their points as the tier maps them",
        params: TierParams,
        querystring: PageQuery,
        response: { 200: EarningRuleList, ...errorResponses(404) },
      },
    },
    async (request) => tiers.listTierEarningRules(deps, actorOf(request), request.params.campaignId, request.params.loyaltyTierId, request.query),
  );

  app.get(
    '/v1/loyalties/:campaignId/tiers/:loyaltyTierId/rewards',
    {
      schema: {
        tags,
        operationId: 'listLoyaltyTierRewards',
        summary: "The program's rewards at the tier's prices",
        params: TierParams,
        response: { 200: TierRewardList, ...errorResponses(404) },
      },
    },
    async (request) => tiers.listTierRewards(deps, actorOf(request), request.params.campaignId, request.params.loyaltyTierId),
  );

  app.get(
    '/v1/loyalties/members/:memberId/tiers',
    {
      schema: {
        tags,
        operationId: 'listMemberLoyaltyTiers',
        summary: 'The tier a member card holds, with its start and expiration dates',
        params: MemberTierParams,
        response: { 200: TierList, ...errorResponses(404) },
      },
    },
    async (request) => tiers.listMemberTiers(deps, actorOf(request), request.params.memberId),
  );
}
