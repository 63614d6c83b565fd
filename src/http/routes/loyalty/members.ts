import type { FastifyReply } from 'fastify';
import type { RouteContext, TypedApp } from '../../route-context.ts';
import { adjustMemberBalance } from '../../../services/loyalty/balance.ts';
import { drawAsset } from '../../../services/loyalty/card-assets.ts';
import {
  cardTransactions,
  exportCardTransactions,
  exportPointsExpiration,
  exportProgramTransactions,
  memberActivities,
  memberActivity,
  pointsExpiration,
  programTransactions,
} from '../../../services/loyalty/history.ts';
import { addMember, getMember, listMembers } from '../../../services/loyalty/members.ts';
import { activatePending } from '../../../services/loyalty/pending-activation.ts';
import { adjustPending, cancelPending, listPending } from '../../../services/loyalty/pending-points.ts';
import { transferPoints } from '../../../services/loyalty/transfers.ts';
import { actorOf } from '../../plugins/auth.ts';
import { noContent } from '../../reply.ts';
import { ErrorBody, errorResponses, IdParams, NoContent } from '../../../api/common.ts';
import {
  AddMemberBody,
  AssetParams,
  AssetPng,
  AssetQuery,
  AssetSvg,
  CampaignMemberParams,
  ListMembersQuery,
  LoyaltyCardObject,
  MemberActivitiesList,
  MemberActivitiesQuery,
  MemberActivityList,
  MemberActivityQuery,
  MemberBalanceBody,
  MemberList,
  MemberParams,
  PageQuery,
  PendingAdjustBody,
  PendingBalance,
  PendingListQuery,
  PendingParams,
  PendingPointsList,
  PointsBalance,
  PointsBucketList,
  TransferBody,
} from '../../../api/loyalty.ts';
import { ExportObject, ScopedExportBody } from '../../../api/exports.ts';
import { CampaignTransactionsQuery, MemberTransactionsQuery, TransactionList } from '../../../api/vouchers.ts';

// Loyalty members and their points (loyalty reference 2, 3; seed 4.7). Paths name cards by code; the
// variants without a campaign find the card in any program.

const tags = ['Loyalty members'];
const CampaignParams = IdParams('campaignId', 'Loyalty campaign id (camp_…) or name');

export function registerLoyaltyMemberRoutes(app: TypedApp, { deps }: RouteContext): void {
  app.post(
    '/v1/loyalties/:campaignId/members',
    {
      schema: {
        tags,
        operationId: 'addLoyaltyMember',
        summary: 'Add a member: publish a card of the program to a customer (created by source_id when unknown)',
        params: CampaignParams,
        body: AddMemberBody,
        response: { 200: LoyaltyCardObject, ...errorResponses(404) },
      },
    },
    async (request) => addMember(deps, actorOf(request), request.params.campaignId, request.body),
  );

  app.get(
    '/v1/loyalties/:campaignId/members',
    {
      schema: {
        tags,
        operationId: 'listLoyaltyMembers',
        summary: "List a program's members (its cards that have a holder), newest first",
        params: CampaignParams,
        querystring: ListMembersQuery,
        response: { 200: MemberList, ...errorResponses(404) },
      },
    },
    async (request) => listMembers(deps, actorOf(request), request.params.campaignId, request.query),
  );

  app.get(
    '/v1/loyalties/:campaignId/members/:memberId',
    {
      schema: { tags, operationId: 'getLoyaltyMember', summary: 'Get a member card of the program', params: CampaignMemberParams, response: { 200: LoyaltyCardObject, ...errorResponses(404) } },
    },
    async (request) => getMember(deps, actorOf(request), request.params.campaignId, request.params.memberId),
  );

  app.get(
    '/v1/loyalties/members/:memberId',
    {
      schema: { tags, operationId: 'getLoyaltyMemberByCode', summary: 'Get a member card by its code', params: MemberParams, response: { 200: LoyaltyCardObject, ...errorResponses(404) } },
    },
    async (request) => getMember(deps, actorOf(request), null, request.params.memberId),
  );

  const balanceSummary = 'Add or remove points by hand; a positive amount adds, a negative one removes; a removal beyond the balance changes nothing';
  app.post(
    '/v1/loyalties/:campaignId/members/:memberId/balance',
    {
      schema: { tags, operationId: 'adjustLoyaltyMemberBalance', summary: balanceSummary, params: CampaignMemberParams, body: MemberBalanceBody, response: { 200: PointsBalance, ...errorResponses(404) } },
    },
    async (request) => adjustMemberBalance(deps, actorOf(request), request.params.campaignId, request.params.memberId, request.body),
  );
  app.post(
    '/v1/loyalties/members/:memberId/balance',
    {
      schema: { tags, operationId: 'adjustLoyaltyCardBalance', summary: balanceSummary, params: MemberParams, body: MemberBalanceBody, response: { 200: PointsBalance, ...errorResponses(404) } },
    },
    async (request) => adjustMemberBalance(deps, actorOf(request), null, request.params.memberId, request.body),
  );

  app.post(
    '/v1/loyalties/:campaignId/members/:memberId/transfers',
    {
      schema: {
        tags,
        operationId: 'transferLoyaltyPoints',
        summary: 'Move points from donor cards to this card, all items or none; answers the destination card',
        params: CampaignMemberParams,
        body: TransferBody,
        response: { 200: LoyaltyCardObject, ...errorResponses(404) },
      },
    },
    async (request) => transferPoints(deps, actorOf(request), request.params.campaignId, request.params.memberId, request.body),
  );

  app.get(
    '/v1/loyalties/:campaignId/transactions',
    {
      schema: {
        tags,
        operationId: 'listLoyaltyProgramTransactions',
        summary: "List the points transactions of every card of a program, newest first",
        params: CampaignParams,
        querystring: CampaignTransactionsQuery,
        response: { 200: TransactionList, ...errorResponses(404) },
      },
    },
    async (request) => programTransactions(deps, actorOf(request), request.params.campaignId, request.query),
  );
  app.get(
    '/v1/loyalties/:campaignId/members/:memberId/transactions',
    {
      schema: {
        tags,
        operationId: 'listLoyaltyMemberTransactions',
        summary: "List a card's points transactions, newest first",
        params: CampaignMemberParams,
        querystring: MemberTransactionsQuery,
        response: { 200: TransactionList, ...errorResponses(404) },
      },
    },
    async (request) => cardTransactions(deps, actorOf(request), request.params.campaignId, request.params.memberId, request.query),
  );
  app.get(
    '/v1/loyalties/members/:memberId/transactions',
    {
      schema: {
        tags,
        operationId: 'listLoyaltyCardTransactions',
        summary: "List a card's points transactions by its code, newest first",
        params: MemberParams,
        querystring: MemberTransactionsQuery,
        response: { 200: TransactionList, ...errorResponses(404) },
      },
    },
    async (request) => cardTransactions(deps, actorOf(request), null, request.params.memberId, request.query),
  );

  // Exports of transactions and points buckets: ordinary exports (GET /v1/exports/{id}) limited to the path's program or card.
  app.post(
    '/v1/loyalties/:campaignId/transactions/export',
    {
      schema: {
        tags,
        operationId: 'exportLoyaltyProgramTransactions',
        summary: "Schedule a CSV export of a program's points transactions (a voucher_transactions export limited to the program, every card)",
        params: CampaignParams,
        body: ScopedExportBody,
        response: { 200: ExportObject, ...errorResponses(404) },
      },
    },
    async (request) => exportProgramTransactions(deps, actorOf(request), request.params.campaignId, request.body),
  );
  app.post(
    '/v1/loyalties/:campaignId/members/:memberId/transactions/export',
    {
      schema: {
        tags,
        operationId: 'exportLoyaltyMemberTransactions',
        summary: "Schedule a CSV export of a card's points transactions (a voucher_transactions export limited to the card)",
        params: CampaignMemberParams,
        body: ScopedExportBody,
        response: { 200: ExportObject, ...errorResponses(404) },
      },
    },
    async (request) => exportCardTransactions(deps, actorOf(request), request.params.campaignId, request.params.memberId, request.body),
  );
  app.post(
    '/v1/loyalties/members/:memberId/transactions/export',
    {
      schema: {
        tags,
        operationId: 'exportLoyaltyCardTransactions',
        summary: "Schedule a CSV export of a card's points transactions by its code (a voucher_transactions export limited to the card)",
        params: MemberParams,
        body: ScopedExportBody,
        response: { 200: ExportObject, ...errorResponses(404) },
      },
    },
    async (request) => exportCardTransactions(deps, actorOf(request), null, request.params.memberId, request.body),
  );
  app.post(
    '/v1/loyalties/:campaignId/points-expiration/export',
    {
      schema: {
        tags,
        operationId: 'exportLoyaltyPointsExpiration',
        summary: "Schedule a CSV export of a program's points buckets and their expiry (a points_expiration export limited to the program)",
        params: CampaignParams,
        body: ScopedExportBody,
        response: { 200: ExportObject, ...errorResponses(404) },
      },
    },
    async (request) => exportPointsExpiration(deps, actorOf(request), request.params.campaignId, request.body),
  );

  app.get(
    '/v1/loyalties/:campaignId/members/:memberId/points-expiration',
    {
      schema: {
        tags,
        operationId: 'listLoyaltyMemberPointsExpiration',
        summary: "List a card's usable points buckets, soonest expiry first",
        params: CampaignMemberParams,
        querystring: PageQuery,
        response: { 200: PointsBucketList, ...errorResponses(404) },
      },
    },
    async (request) => pointsExpiration(deps, actorOf(request), request.params.campaignId, request.params.memberId, request.query),
  );

  for (const [path, params, campaignScoped] of [
    ['/v1/loyalties/:campaignId/members/:memberId', CampaignMemberParams, true],
    ['/v1/loyalties/members/:memberId', MemberParams, false],
  ] as const) {
    const suffix = campaignScoped ? 'InProgram' : '';
    app.get(
      `${path}/activity`,
      {
        schema: {
          tags,
          operationId: `listLoyaltyMemberActivity${suffix}`,
          summary: "List a card's activities (the event log filtered by the card), newest first, with an event-id cursor",
          params,
          querystring: MemberActivityQuery,
          response: { 200: MemberActivityList, ...errorResponses(404) },
        },
      },
      async (request) => memberActivity(deps, actorOf(request), 'campaignId' in request.params ? request.params.campaignId : null, request.params.memberId, request.query),
    );
    app.get(
      `${path}/activities`,
      {
        schema: {
          tags,
          operationId: `listLoyaltyMemberActivities${suffix}`,
          summary: "List a card's activities with pages and a total (the SDK's deprecated getMemberActivities)",
          params,
          querystring: MemberActivitiesQuery,
          response: { 200: MemberActivitiesList, ...errorResponses(404) },
        },
      },
      async (request) => memberActivities(deps, actorOf(request), 'campaignId' in request.params ? request.params.campaignId : null, request.params.memberId, request.query),
    );
  }

  app.get(
    '/v1/loyalties/:campaignId/pending-points',
    {
      schema: { tags, operationId: 'listLoyaltyProgramPendingPoints', summary: "List a program's pending points entries", params: CampaignParams, querystring: PendingListQuery, response: { 200: PendingPointsList, ...errorResponses(404) } },
    },
    async (request) => listPending(deps, actorOf(request), request.params.campaignId, null, request.query),
  );
  app.get(
    '/v1/loyalties/:campaignId/members/:memberId/pending-points',
    {
      schema: { tags, operationId: 'listLoyaltyMemberPendingPoints', summary: "List a card's pending points entries", params: CampaignMemberParams, querystring: PendingListQuery, response: { 200: PendingPointsList, ...errorResponses(404) } },
    },
    async (request) => listPending(deps, actorOf(request), request.params.campaignId, request.params.memberId, request.query),
  );
  app.get(
    '/v1/loyalties/members/:memberId/pending-points',
    {
      schema: { tags, operationId: 'listLoyaltyCardPendingPoints', summary: "List a card's pending points entries by its code", params: MemberParams, querystring: PendingListQuery, response: { 200: PendingPointsList, ...errorResponses(404) } },
    },
    async (request) => listPending(deps, actorOf(request), null, request.params.memberId, request.query),
  );
  app.post(
    '/v1/loyalties/members/:memberId/pending-points/:pendingPointsId/activate',
    {
      schema: { tags, operationId: 'activateLoyaltyPendingPoints', summary: 'Activate a pending points entry now: its points join the balance', params: PendingParams, response: { 200: PointsBalance, ...errorResponses(404) } },
    },
    async (request) => activatePending(deps, actorOf(request), request.params.memberId, request.params.pendingPointsId),
  );
  app.post(
    '/v1/loyalties/members/:memberId/pending-points/:pendingPointsId/balance',
    {
      schema: {
        tags,
        operationId: 'adjustLoyaltyPendingPoints',
        summary: 'Change the points of a pending entry; the result must stay above 0',
        params: PendingParams,
        body: PendingAdjustBody,
        response: { 200: PendingBalance, ...errorResponses(404) },
      },
    },
    async (request) => adjustPending(deps, actorOf(request), request.params.memberId, request.params.pendingPointsId, request.body),
  );
  app.post(
    '/v1/loyalties/members/:memberId/pending-points/:pendingPointsId/cancel',
    {
      schema: { tags, operationId: 'cancelLoyaltyPendingPoints', summary: 'Cancel a pending points entry', params: PendingParams, response: { 204: NoContent, ...errorResponses(404) } },
    },
    async (request, reply) => {
      await cancelPending(deps, actorOf(request), request.params.memberId, request.params.pendingPointsId);
      return noContent(reply);
    },
  );

  for (const kind of ['qr', 'barcode'] as const) {
    app.get(
      `/v1/assets/${kind}/:assetId`,
      {
        config: { auth: 'public' },
        // Images: PNG is compressed already, and an SVG code is small.
        compress: false,
        schema: {
          tags: ['Assets'],
          operationId: kind === 'qr' ? 'getQrCodeAsset' : 'getBarcodeAsset',
          summary: kind === 'qr' ? "Draw a voucher's code as a QR code (PNG or SVG); the link itself is the credential" : "Draw a voucher's code as a Code 128 barcode (PNG or SVG); the link itself is the credential",
          params: AssetParams,
          querystring: AssetQuery,
          response: {
            200: { description: 'The image: PNG, or SVG with format=svg', content: { 'image/png': { schema: AssetPng }, 'image/svg+xml': { schema: AssetSvg } } },
            400: ErrorBody,
            404: ErrorBody,
          },
        },
      },
      async (request, reply) => {
        const image = await drawAsset(deps, kind, request.params.assetId, request.query);
        // The typed reply only knows the string schemas; a PNG is a Buffer, sent through the untyped one.
        return (reply as FastifyReply).type(image.contentType).header('Cache-Control', 'public, max-age=3600').send(image.body);
      },
    );
  }
}
