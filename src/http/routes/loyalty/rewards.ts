import type { RouteContext, TypedApp } from '../../route-context.ts';
import { listMemberRewards, redeemReward } from '../../../services/loyalty/reward-redemption.ts';
import * as rewards from '../../../services/loyalty/rewards.ts';
import { actorOf } from '../../plugins/auth.ts';
import { noContent } from '../../reply.ts';
import { errorResponses, NoContent } from '../../../api/common.ts';
import {
  CampaignAssignmentParams,
  CampaignParams,
  CardRedemptionParams,
  CreateCampaignRewardsBody,
  CreateRewardAssignmentBody,
  CreateRewardBody,
  ListAssignmentsQuery,
  ListRewardsQuery,
  MemberParams,
  MemberRewardList,
  MemberRewardsQuery,
  RedeemRewardBody,
  RedemptionObject,
  RewardAssignmentArray,
  RewardAssignmentList,
  RewardAssignmentObject,
  RewardAssignmentParams,
  RewardList,
  RewardObject,
  RewardParams,
  UpdateRewardAssignmentBody,
  UpdateRewardBody,
} from '../../../api/rewards.ts';

// Rewards, their assignments to loyalty programs (two path families), member rewards and redeeming a
// reward with a loyalty card (seed 4.1; loyalty reference 5).

const tags = ['Rewards'];
const memberTags = ['Loyalty members'];

export function registerRewardRoutes(app: TypedApp, { deps }: RouteContext): void {
  // ---- /v1/rewards ----
  app.get(
    '/v1/rewards',
    { schema: { tags, operationId: 'listRewards', summary: 'List rewards, newest first', querystring: ListRewardsQuery, response: { 200: RewardList, ...errorResponses() } } },
    async (request) => rewards.listRewards(deps, actorOf(request), request.query),
  );

  app.post(
    '/v1/rewards',
    {
      schema: {
        tags,
        operationId: 'createReward',
        summary: 'Create a reward; without `type` it follows from the one parameters member sent',
        body: CreateRewardBody,
        response: { 200: RewardObject, ...errorResponses(404) },
      },
    },
    async (request) => rewards.createReward(deps, actorOf(request), request.body),
  );

  app.get(
    '/v1/rewards/:rewardId',
    { schema: { tags, operationId: 'getReward', summary: 'Get a reward', params: RewardParams, response: { 200: RewardObject, ...errorResponses(404) } } },
    async (request) => rewards.getReward(deps, actorOf(request), request.params.rewardId),
  );

  app.put(
    '/v1/rewards/:rewardId',
    {
      schema: {
        tags,
        operationId: 'updateReward',
        summary: 'Update a reward; only the members sent change and the type stays',
        params: RewardParams,
        body: UpdateRewardBody,
        response: { 200: RewardObject, ...errorResponses(404) },
      },
    },
    async (request) => rewards.updateReward(deps, actorOf(request), request.params.rewardId, request.body),
  );

  app.delete(
    '/v1/rewards/:rewardId',
    {
      schema: {
        tags,
        operationId: 'deleteReward',
        summary: 'Delete a reward that is assigned to no campaign (otherwise 400 resource_in_use)',
        params: RewardParams,
        response: { 204: NoContent, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      await rewards.deleteReward(deps, actorOf(request), request.params.rewardId);
      return noContent(reply);
    },
  );

  app.get(
    '/v1/rewards/:rewardId/assignments',
    {
      schema: {
        tags,
        operationId: 'listRewardAssignments',
        summary: "List a reward's assignments",
        params: RewardParams,
        querystring: ListAssignmentsQuery,
        response: { 200: RewardAssignmentList, ...errorResponses(404) },
      },
    },
    async (request) => rewards.listRewardAssignments(deps, actorOf(request), { rewardId: request.params.rewardId }, request.query),
  );

  app.post(
    '/v1/rewards/:rewardId/assignments',
    {
      schema: {
        tags,
        operationId: 'createRewardAssignment',
        summary: 'Assign a reward to a loyalty program at a price in points (pay-with-points rewards take no price)',
        params: RewardParams,
        body: CreateRewardAssignmentBody,
        response: { 200: RewardAssignmentObject, ...errorResponses(404, 409) },
      },
    },
    async (request) => rewards.createRewardAssignment(deps, actorOf(request), request.params.rewardId, request.body),
  );

  app.get(
    '/v1/rewards/:rewardId/assignments/:assignmentId',
    {
      schema: { tags, operationId: 'getRewardAssignment', summary: 'Get an assignment of a reward', params: RewardAssignmentParams, response: { 200: RewardAssignmentObject, ...errorResponses(404) } },
    },
    async (request) => rewards.getRewardAssignment(deps, actorOf(request), { rewardId: request.params.rewardId }, request.params.assignmentId),
  );

  app.put(
    '/v1/rewards/:rewardId/assignments/:assignmentId',
    {
      schema: {
        tags,
        operationId: 'updateRewardAssignment',
        summary: "Change an assignment's price or auto-redeem flag",
        params: RewardAssignmentParams,
        body: UpdateRewardAssignmentBody,
        response: { 200: RewardAssignmentObject, ...errorResponses(404) },
      },
    },
    async (request) => rewards.updateRewardAssignment(deps, actorOf(request), { rewardId: request.params.rewardId }, request.params.assignmentId, request.body),
  );

  app.delete(
    '/v1/rewards/:rewardId/assignments/:assignmentId',
    {
      schema: { tags, operationId: 'deleteRewardAssignment', summary: 'Remove a reward from a program', params: RewardAssignmentParams, response: { 204: NoContent, ...errorResponses(404) } },
    },
    async (request, reply) => {
      await rewards.deleteRewardAssignment(deps, actorOf(request), { rewardId: request.params.rewardId }, request.params.assignmentId);
      return noContent(reply);
    },
  );

  // ---- /v1/loyalties/{campaignId}/rewards and reward-assignments ----
  app.get(
    '/v1/loyalties/:campaignId/rewards',
    {
      schema: {
        tags,
        operationId: 'listCampaignRewardAssignments',
        summary: "List a program's reward assignments",
        params: CampaignParams,
        querystring: ListAssignmentsQuery,
        response: { 200: RewardAssignmentList, ...errorResponses(404) },
      },
    },
    async (request) => rewards.listRewardAssignments(deps, actorOf(request), { campaignId: request.params.campaignId }, request.query),
  );

  app.post(
    '/v1/loyalties/:campaignId/rewards',
    {
      schema: {
        tags,
        operationId: 'createCampaignRewardAssignments',
        summary: 'Assign rewards to the program (an array; all or none), answered as an array',
        params: CampaignParams,
        body: CreateCampaignRewardsBody,
        response: { 200: RewardAssignmentArray, ...errorResponses(404, 409) },
      },
    },
    async (request) => rewards.createCampaignRewards(deps, actorOf(request), request.params.campaignId, request.body),
  );

  for (const [segment, suffix] of [
    ['rewards', ''],
    ['reward-assignments', 'Legacy'],
  ] as const) {
    app.get(
      `/v1/loyalties/:campaignId/${segment}/:assignmentId`,
      {
        schema: {
          tags,
          operationId: `getCampaignRewardAssignment${suffix}`,
          summary: 'Get a reward assignment of the program',
          params: CampaignAssignmentParams,
          response: { 200: RewardAssignmentObject, ...errorResponses(404) },
        },
      },
      async (request) => rewards.getRewardAssignment(deps, actorOf(request), { campaignId: request.params.campaignId }, request.params.assignmentId),
    );
  }

  app.get(
    '/v1/loyalties/:campaignId/reward-assignments',
    {
      schema: {
        tags,
        operationId: 'listCampaignRewardAssignmentsLegacy',
        summary: "List a program's reward assignments",
        params: CampaignParams,
        querystring: ListAssignmentsQuery,
        response: { 200: RewardAssignmentList, ...errorResponses(404) },
      },
    },
    async (request) => rewards.listRewardAssignments(deps, actorOf(request), { campaignId: request.params.campaignId }, request.query),
  );

  app.put(
    '/v1/loyalties/:campaignId/rewards/:assignmentId',
    {
      schema: {
        tags,
        operationId: 'updateCampaignRewardAssignment',
        summary: "Change an assignment's price or auto-redeem flag",
        params: CampaignAssignmentParams,
        body: UpdateRewardAssignmentBody,
        response: { 200: RewardAssignmentObject, ...errorResponses(404) },
      },
    },
    async (request) => rewards.updateRewardAssignment(deps, actorOf(request), { campaignId: request.params.campaignId }, request.params.assignmentId, request.body),
  );

  app.delete(
    '/v1/loyalties/:campaignId/rewards/:assignmentId',
    {
      schema: { tags, operationId: 'deleteCampaignRewardAssignment', summary: 'Remove a reward from the program', params: CampaignAssignmentParams, response: { 204: NoContent, ...errorResponses(404) } },
    },
    async (request, reply) => {
      await rewards.deleteRewardAssignment(deps, actorOf(request), { campaignId: request.params.campaignId }, request.params.assignmentId);
      return noContent(reply);
    },
  );

  app.get(
    '/v1/loyalties/:campaignId/reward-assignments/:assignmentId/reward',
    {
      schema: {
        tags,
        operationId: 'getRewardDetails',
        summary: 'Get the reward of an assignment of the program',
        params: CampaignAssignmentParams,
        response: { 200: RewardObject, ...errorResponses(404) },
      },
    },
    async (request) => rewards.getAssignedReward(deps, actorOf(request), request.params.campaignId, request.params.assignmentId),
  );

  // ---- member rewards and redemption ----
  app.get(
    '/v1/loyalties/members/:memberId/rewards',
    {
      schema: {
        tags: memberTags,
        operationId: 'listMemberRewards',
        summary: "The rewards of the card's program at the member's prices; affordable_only keeps those the balance pays for",
        params: MemberParams,
        querystring: MemberRewardsQuery,
        response: { 200: MemberRewardList, ...errorResponses(404) },
      },
    },
    async (request) => listMemberRewards(deps, actorOf(request), request.params.memberId, request.query),
  );

  const redeemSummary = 'Redeem a reward with the card: points are taken and the reward handed out, or nothing changes';
  app.post(
    '/v1/loyalties/:campaignId/members/:memberId/redemption',
    {
      schema: {
        tags: memberTags,
        operationId: 'redeemLoyaltyReward',
        summary: redeemSummary,
        params: CardRedemptionParams,
        body: RedeemRewardBody,
        response: { 200: RedemptionObject, ...errorResponses(404) },
      },
    },
    async (request) => redeemReward(deps, actorOf(request), request.params.campaignId, request.params.memberId, request.body),
  );

  app.post(
    '/v1/loyalties/members/:memberId/redemption',
    {
      schema: {
        tags: memberTags,
        operationId: 'redeemLoyaltyRewardByCode',
        summary: redeemSummary,
        params: MemberParams,
        body: RedeemRewardBody,
        response: { 200: RedemptionObject, ...errorResponses(404) },
      },
    },
    async (request) => redeemReward(deps, actorOf(request), null, request.params.memberId, request.body),
  );
}
