import type { RouteContext, TypedApp } from '../../route-context.ts';
import { assertClientRedeem } from '../../../services/redemptions/client.ts';
import { clientValidateBody, redeemTier, redeemVoucher, validatePromotions, validateTier, validateVoucher } from '../../../services/redemptions/legacy.ts';
import { checkEligibility, examine } from '../../../services/redemptions/qualifications.ts';
import { actorOf } from '../../plugins/auth.ts';
import { errorResponses } from '../../../api/common.ts';
import {
  ClientRedeemQuery,
  ClientValidateQuery,
  ExamineBody,
  ExamineQuery,
  ExamineResponse,
  LegacyBody,
  LegacyValidation,
  PromotionsValidation,
  PromotionsValidationBody,
  PromotionsValidationQuery,
  QualificationsBody,
  QualificationsResponse,
  RedemptionRecordObject,
  TierParams,
  TrackingQuery,
} from '../../../api/redemptions.ts';
import { CodeParams } from '../../../api/vouchers.ts';

// The legacy single-object endpoints (promotions reference 6.11) and qualifications (8).

export function registerLegacyRoutes(app: TypedApp, { deps }: RouteContext): void {
  app.post(
    '/v1/vouchers/:code/validate',
    {
      schema: {
        tags: ['Validations'],
        operationId: 'validateVoucher',
        summary: 'Validate one voucher (legacy); 200 with valid:false, reason and error when it does not apply',
        params: CodeParams,
        body: LegacyBody,
        response: { 200: LegacyValidation, ...errorResponses(404) },
      },
    },
    async (request) => validateVoucher(deps, actorOf(request), request.params.code, request.body),
  );

  app.post(
    '/v1/vouchers/:code/redemption',
    {
      schema: {
        tags: ['Redemptions'],
        operationId: 'redeemVoucher',
        summary: 'Redeem one voucher (legacy): the redemption record; a failure answers 400 with the FAILURE record as resource_id',
        params: CodeParams,
        querystring: TrackingQuery,
        body: LegacyBody,
        response: { 200: RedemptionRecordObject, ...errorResponses(404) },
      },
    },
    async (request) => redeemVoucher(deps, actorOf(request), request.params.code, request.body, request.query.tracking_id),
  );

  app.post(
    '/v1/promotions/tiers/:promotionTierId/redemption',
    {
      schema: {
        tags: ['Redemptions'],
        operationId: 'redeemPromotionTier',
        summary: 'Redeem one promotion tier (legacy): the redemption record; a failure answers 400 with the FAILURE record as resource_id',
        params: TierParams,
        body: LegacyBody,
        response: { 200: RedemptionRecordObject, ...errorResponses(404) },
      },
    },
    async (request) => redeemTier(deps, actorOf(request), request.params.promotionTierId, request.body),
  );

  app.post(
    '/v1/promotions/tiers/:promotionTierId/validation',
    {
      schema: {
        tags: ['Validations'],
        operationId: 'validatePromotionTier',
        summary: 'Validate one promotion tier (legacy); 200 with valid:false and the reason when it does not apply',
        params: TierParams,
        body: LegacyBody,
        response: { 200: LegacyValidation, ...errorResponses(404) },
      },
    },
    async (request) => validateTier(deps, actorOf(request), request.params.promotionTierId, request.body),
  );

  app.post(
    '/v1/promotions/validation',
    {
      schema: {
        tags: ['Validations'],
        operationId: 'validatePromotions',
        summary: 'The promotion tiers available now that apply to the customer and order, each on its own, in hierarchy order (legacy)',
        querystring: PromotionsValidationQuery,
        body: PromotionsValidationBody,
        response: { 200: PromotionsValidation, ...errorResponses() },
      },
    },
    async (request) => validatePromotions(deps, actorOf(request), request.body, { audienceOnly: request.query.audienceRulesOnly === true }),
  );

  app.get(
    '/client/v1/validate',
    {
      // A validation with a session (session_type=LOCK) stores the session's locks.
      config: { writes: true },
      schema: {
        tags: ['Client-side'],
        operationId: 'validateVoucherClientSide',
        summary: 'Validate one voucher from a shop page (legacy; the query carries code, amount, items, customer, metadata)',
        querystring: ClientValidateQuery,
        response: { 200: LegacyValidation, ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const body = clientValidateBody(request.query);
      if (!request.query.code) return validatePromotions(deps, actor, body, { audienceOnly: false });
      return validateVoucher(deps, actor, request.query.code, body);
    },
  );

  app.get(
    '/client/v1/promotions/validation',
    {
      // A validation with a session (session_type=LOCK) stores the session's locks.
      config: { writes: true },
      schema: {
        tags: ['Client-side'],
        operationId: 'validatePromotionsClientSide',
        summary: 'The promotion tiers that apply, from a shop page (legacy)',
        querystring: ClientValidateQuery,
        response: { 200: PromotionsValidation, ...errorResponses(403) },
      },
    },
    async (request) => validatePromotions(deps, actorOf(request), clientValidateBody(request.query), { audienceOnly: false }),
  );

  app.post(
    '/client/v1/redeem',
    {
      schema: {
        tags: ['Client-side'],
        operationId: 'redeemVoucherClientSide',
        summary: 'Redeem one voucher from a shop page (legacy; the project must allow client-side redemption)',
        querystring: ClientRedeemQuery,
        body: LegacyBody,
        response: { 200: RedemptionRecordObject, ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      await assertClientRedeem(deps.db, actor.projectId);
      return redeemVoucher(deps, actor, request.query.code, request.body, request.query.tracking_id);
    },
  );

  app.post(
    '/v1/qualifications',
    {
      schema: {
        tags: ['Qualifications'],
        operationId: 'checkEligibility',
        summary: 'The redeemables the customer and order qualify for, per scenario; nothing is stored',
        body: QualificationsBody,
        response: { 200: QualificationsResponse, ...errorResponses(404) },
      },
    },
    async (request) => checkEligibility(deps, actorOf(request), request.body),
  );

  app.post(
    '/client/v1/qualifications',
    {
      schema: {
        tags: ['Client-side'],
        operationId: 'checkEligibilityClientSide',
        summary: 'Qualifications from a shop page (client keys and a trusted origin)',
        body: QualificationsBody,
        response: { 200: QualificationsResponse, ...errorResponses(403, 404) },
      },
    },
    async (request) => checkEligibility(deps, actorOf(request), request.body),
  );

  for (const kind of ['vouchers', 'campaigns'] as const) {
    app.post(
      `/v1/${kind}/qualification`,
      {
        schema: {
          tags: ['Qualifications'],
          operationId: kind === 'vouchers' ? 'examineVoucherQualifications' : 'examineCampaignQualifications',
          summary:
            kind === 'vouchers'
              ? "The customer's vouchers that apply to the order (legacy; use POST /v1/qualifications)"
              : 'The campaigns of the redeemables the customer and order qualify for (legacy; use POST /v1/qualifications)',
          querystring: ExamineQuery,
          body: ExamineBody,
          response: { 200: ExamineResponse, ...errorResponses(404) },
        },
      },
      async (request) => examine(deps, actorOf(request), kind, request.body, request.query),
    );
  }
}
