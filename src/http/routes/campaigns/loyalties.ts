import type { RouteContext, TypedApp } from '../../route-context.ts';
import * as campaigns from '../../../services/campaigns/campaigns.ts';
import { actorOf } from '../../plugins/auth.ts';
import {
  AsyncActionAccepted,
  CampaignList,
  CampaignObject,
  CreateCampaignBody,
  DeleteCampaignQuery,
  ListCampaignsQuery,
  UpdateCampaignBody,
} from '../../../api/campaigns.ts';
import { errorResponses, IdParams } from '../../../api/common.ts';

// `/v1/loyalties`: the campaign endpoints with the type fixed to LOYALTY_PROGRAM (loyalty reference 1.1).
// A campaign of another type is "not found" here.

const tags = ['Loyalty programs'];
const CampaignParams = IdParams('campaignId', 'Loyalty campaign id (camp_…) or name');
const LOYALTY = 'LOYALTY_PROGRAM' as const;

export function registerLoyaltyCampaignRoutes(app: TypedApp, { deps }: RouteContext): void {
  app.post(
    '/v1/loyalties',
    {
      schema: {
        tags,
        operationId: 'createLoyaltyProgram',
        summary: 'Create a loyalty program and its first cards',
        body: CreateCampaignBody,
        response: { 200: CampaignObject, ...errorResponses(404, 409) },
      },
    },
    async (request) => campaigns.createCampaign(deps, actorOf(request), request.body, { campaignType: LOYALTY }),
  );

  app.get(
    '/v1/loyalties',
    {
      schema: { tags, operationId: 'listLoyaltyPrograms', summary: 'List loyalty programs, newest first', querystring: ListCampaignsQuery, response: { 200: CampaignList, ...errorResponses() } },
    },
    async (request) => campaigns.listCampaigns(deps, actorOf(request), request.query, LOYALTY),
  );

  app.get(
    '/v1/loyalties/:campaignId',
    {
      schema: { tags, operationId: 'getLoyaltyProgram', summary: 'Get a loyalty program by id or name', params: CampaignParams, response: { 200: CampaignObject, ...errorResponses(404) } },
    },
    async (request) => campaigns.getCampaign(deps, actorOf(request), request.params.campaignId, LOYALTY),
  );

  app.put(
    '/v1/loyalties/:campaignId',
    {
      schema: {
        tags,
        operationId: 'updateLoyaltyProgram',
        summary: 'Update a loyalty program; only the members sent change',
        params: CampaignParams,
        body: UpdateCampaignBody,
        response: { 200: CampaignObject, ...errorResponses(404) },
      },
    },
    async (request) => campaigns.updateCampaign(deps, actorOf(request), request.params.campaignId, request.body, LOYALTY),
  );

  app.delete(
    '/v1/loyalties/:campaignId',
    {
      schema: {
        tags,
        operationId: 'deleteLoyaltyProgram',
        summary: 'Delete a loyalty program (to the bin, or for good with force=true); answers the async action (200, as the vendor does)',
        params: CampaignParams,
        querystring: DeleteCampaignQuery,
        response: { 200: AsyncActionAccepted, ...errorResponses(404) },
      },
    },
    async (request) => ({
      async_action_id: await campaigns.deleteCampaign(deps, actorOf(request), request.params.campaignId, request.query.force === true, LOYALTY),
    }),
  );
}
