import type { RouteContext, TypedApp } from '../../route-context.ts';
import * as tiers from '../../../services/referrals/tiers.ts';
import { actorOf } from '../../plugins/auth.ts';
import { noContent } from '../../reply.ts';
import { errorResponses, NoContent } from '../../../api/common.ts';
import {
  CreateReferralTierBody,
  ListReferralTiersQuery,
  ReferralProgramParams,
  ReferralTierList,
  ReferralTierObject,
  ReferralTierParams,
  UpdateReferralTierBody,
} from '../../../api/referral-tiers.ts';

// Referral tiers: referrer rewards of a referral program. A Punchcard extension — the vendor's
// v2018-08-01 API has no endpoints for them (its dashboard configures them) — so every summary says so.

const tags = ['Referrals'];
const EXTENSION = 'Punchcard extension:';

export function registerReferralTierRoutes(app: TypedApp, { deps }: RouteContext): void {
  app.post(
    '/v1/referrals/:campaignId/tiers',
    {
      schema: {
        tags,
        operationId: 'createReferralTier',
        summary: `${EXTENSION} add a referral tier (a referrer reward earned at a number of converted referees) to a referral program`,
        params: ReferralProgramParams,
        body: CreateReferralTierBody,
        response: { 200: ReferralTierObject, ...errorResponses(404, 409) },
      },
    },
    async (request) => tiers.createReferralTier(deps, actorOf(request), request.params.campaignId, request.body),
  );

  app.get(
    '/v1/referrals/:campaignId/tiers',
    {
      schema: {
        tags,
        operationId: 'listReferralTiers',
        summary: `${EXTENSION} list a referral program's tiers by conversions`,
        params: ReferralProgramParams,
        querystring: ListReferralTiersQuery,
        response: { 200: ReferralTierList, ...errorResponses(404) },
      },
    },
    async (request) => tiers.listTiersOfProgram(deps, actorOf(request), request.params.campaignId, request.query),
  );

  app.get(
    '/v1/referrals/:campaignId/tiers/:tierId',
    {
      schema: {
        tags,
        operationId: 'getReferralTier',
        summary: `${EXTENSION} get a referral tier`,
        params: ReferralTierParams,
        response: { 200: ReferralTierObject, ...errorResponses(404) },
      },
    },
    async (request) => tiers.getReferralTier(deps, actorOf(request), request.params.campaignId, request.params.tierId),
  );

  app.put(
    '/v1/referrals/:campaignId/tiers/:tierId',
    {
      schema: {
        tags,
        operationId: 'updateReferralTier',
        summary: `${EXTENSION} update a referral tier (only the members sent change; rewards already paid stay paid)`,
        params: ReferralTierParams,
        body: UpdateReferralTierBody,
        response: { 200: ReferralTierObject, ...errorResponses(404, 409) },
      },
    },
    async (request) => tiers.updateReferralTierById(deps, actorOf(request), request.params.campaignId, request.params.tierId, request.body),
  );

  app.delete(
    '/v1/referrals/:campaignId/tiers/:tierId',
    {
      schema: {
        tags,
        operationId: 'deleteReferralTier',
        summary: `${EXTENSION} delete a referral tier (rewards already paid stay paid)`,
        params: ReferralTierParams,
        response: { 204: NoContent, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      await tiers.deleteReferralTierById(deps, actorOf(request), request.params.campaignId, request.params.tierId);
      return noContent(reply);
    },
  );
}
