import type { RouteContext, TypedApp } from '../../route-context.ts';
import { getRedemption, listRedemptions, voucherRedemptions } from '../../../services/redemptions/list.ts';
import { rollbackRedemption, rollbackRequest, rollbackStacked } from '../../../services/redemptions/rollback.ts';
import { releaseSession } from '../../../services/redemptions/sessions.ts';
import { served } from '../../../lib/json-text.ts';
import { actorOf } from '../../plugins/auth.ts';
import { noContent } from '../../reply.ts';
import { errorResponses, NoContent } from '../../../api/common.ts';
import {
  ListRedemptionsQuery,
  RedemptionList,
  RedemptionParams,
  RedemptionRecordObject,
  RollbackBody,
  RollbackQuery,
  RollbacksResponse,
  SessionParams,
  VoucherRedemptions,
  VoucherRedemptionsQuery,
} from '../../../api/redemptions.ts';
import { CodeParams } from '../../../api/vouchers.ts';

// Redemption records, rollbacks and session release (seed 4.11; promotions reference 6.10, 6.12, 6.13).

const tags = ['Redemptions'];

export function registerRedemptionRecordRoutes(app: TypedApp, { deps }: RouteContext): void {
  app.get(
    '/v1/redemptions',
    {
      schema: {
        tags,
        operationId: 'listRedemptions',
        summary: 'List redemption and rollback records, newest first, filtered by result, campaign, customer, order, created_at or filters',
        querystring: ListRedemptionsQuery,
        response: { 200: RedemptionList, ...errorResponses() },
      },
    },
    async (request) => served(await listRedemptions(deps, actorOf(request), request.query)),
  );

  app.get(
    '/v1/redemptions/:redemptionId',
    {
      schema: {
        tags,
        operationId: 'getRedemption',
        summary: 'Get a redemption or rollback record (success or failure)',
        params: RedemptionParams,
        response: { 200: RedemptionRecordObject, ...errorResponses(404) },
      },
    },
    async (request) => served(await getRedemption(deps, actorOf(request), request.params.redemptionId)),
  );

  app.get(
    '/v1/vouchers/:code/redemption',
    {
      schema: {
        tags,
        operationId: 'getVoucherRedemptions',
        summary: "A voucher's redemption history: redemptions, failures and rollbacks, newest first",
        params: CodeParams,
        querystring: VoucherRedemptionsQuery,
        response: { 200: VoucherRedemptions, ...errorResponses(404) },
      },
    },
    async (request) => served(await voucherRedemptions(deps, actorOf(request), request.params.code, request.query)),
  );

  app.post(
    '/v1/redemptions/:redemptionId/rollback',
    {
      schema: {
        tags,
        operationId: 'rollbackRedemption',
        summary:
          'Roll back a redemption that is not part of a stacked one: restores what it consumed and cancels its order; refusals (already_rolled_back, invalid_redemption_parent, invalid_redemption) are stored as rrf_ records',
        params: RedemptionParams,
        querystring: RollbackQuery,
        body: RollbackBody,
        response: { 200: RedemptionRecordObject, ...errorResponses(404) },
      },
    },
    async (request) => rollbackRedemption(deps, actorOf(request), request.params.redemptionId, rollbackRequest(request.query, request.body)),
  );

  app.post(
    '/v1/redemptions/:redemptionId/rollbacks',
    {
      schema: {
        tags,
        operationId: 'rollbackStackedRedemption',
        summary: 'Roll back a stacked redemption (every child) or a single one',
        params: RedemptionParams,
        querystring: RollbackQuery,
        body: RollbackBody,
        response: { 200: RollbacksResponse, ...errorResponses(404) },
      },
    },
    async (request) => rollbackStacked(deps, actorOf(request), request.params.redemptionId, rollbackRequest(request.query, request.body)),
  );

  app.delete(
    '/v1/vouchers/:code/sessions/:sessionKey',
    {
      schema: {
        tags: ['Vouchers'],
        operationId: 'releaseValidationSession',
        summary: "Release a validation session's reservations on a voucher",
        params: SessionParams,
        response: { 204: NoContent, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      await releaseSession(deps, actorOf(request), request.params.code, request.params.sessionKey);
      return noContent(reply);
    },
  );
}
