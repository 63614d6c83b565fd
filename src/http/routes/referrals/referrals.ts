import type { RouteContext, TypedApp } from '../../route-context.ts';
import { addHolders, listCodeHolders, removeHolder } from '../../../services/referrals/holders.ts';
import { actorOf } from '../../plugins/auth.ts';
import { noContent } from '../../reply.ts';
import { errorResponses, NoContent } from '../../../api/common.ts';
import {
  AddHoldersBody,
  AddHoldersResponse,
  CampaignHolderParams,
  CampaignMemberParams,
  HolderList,
  HolderParams,
  ListHoldersQuery,
  MemberParams,
} from '../../../api/referrals.ts';

const tags = ['Referrals'];

export function registerReferralRoutes(app: TypedApp, { deps }: RouteContext): void {
  // Every operation exists with and without the program in the path, as the vendor serves them.
  for (const withCampaign of [true, false]) {
    const prefix = withCampaign ? '/v1/referrals/:campaignId/members/:memberId' : '/v1/referrals/members/:memberId';
    const suffix = withCampaign ? 'InCampaign' : '';
    const campaignOf = (params: Record<string, string>) => (withCampaign ? (params.campaignId ?? null) : null);

    app.post(
      `${prefix}/holders`,
      {
        schema: {
          tags,
          operationId: `addReferralCodeHolders${suffix}`,
          summary: 'Add customers to a referral code as referees (all or nothing; unknown source_ids are created)',
          params: withCampaign ? CampaignMemberParams : MemberParams,
          body: AddHoldersBody,
          response: { 200: AddHoldersResponse, ...errorResponses(404, 409) },
        },
      },
      async (request) => addHolders(deps, actorOf(request), campaignOf(request.params), request.params.memberId, request.body),
    );

    app.get(
      `${prefix}/holders`,
      {
        schema: {
          tags,
          operationId: `listReferralCodeHolders${suffix}`,
          summary: 'List the referrer and referees of a referral code, newest first',
          params: withCampaign ? CampaignMemberParams : MemberParams,
          querystring: ListHoldersQuery,
          response: { 200: HolderList, ...errorResponses(404) },
        },
      },
      async (request) => listCodeHolders(deps, actorOf(request), campaignOf(request.params), request.params.memberId, request.query),
    );

    app.delete(
      `${prefix}/holders/:holderId`,
      {
        schema: {
          tags,
          operationId: `removeReferralCodeHolder${suffix}`,
          summary: 'Remove a referee from a referral code',
          params: withCampaign ? CampaignHolderParams : HolderParams,
          response: { 204: NoContent, ...errorResponses(404) },
        },
      },
      async (request, reply) => {
        await removeHolder(deps, actorOf(request), campaignOf(request.params), request.params.memberId, request.params.holderId);
        return noContent(reply);
      },
    );
  }
}
