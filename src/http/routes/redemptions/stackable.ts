import type { RouteContext, TypedApp } from '../../route-context.ts';
import { assertClientRedeem } from '../../../services/redemptions/client.ts';
import { redeemStackable } from '../../../services/redemptions/redeem.ts';
import { validateStackable } from '../../../services/redemptions/validate.ts';
import { actorOf } from '../../plugins/auth.ts';
import { errorResponses } from '../../../api/common.ts';
import { RedemptionResponse, StackableBody, ValidationResponse } from '../../../api/redemptions.ts';

// The stackable API (promotions reference 6.1): validate or redeem up to 30 redeemables in one call,
// server side and client side.

export function registerStackableRoutes(app: TypedApp, { deps }: RouteContext): void {
  app.post(
    '/v1/validations',
    {
      schema: {
        tags: ['Validations'],
        operationId: 'validateStackable',
        summary: 'Validate redeemables against a customer and order; 200 with a result per redeemable, nothing consumed (LOCK sessions reserve)',
        body: StackableBody,
        response: { 200: ValidationResponse, ...errorResponses(404) },
      },
    },
    async (request) => validateStackable(deps, actorOf(request), request.body),
  );

  app.post(
    '/client/v1/validations',
    {
      schema: {
        tags: ['Client-side'],
        operationId: 'validateStackableClientSide',
        summary: 'Validate redeemables from a shop page (client keys and a trusted origin)',
        body: StackableBody,
        response: { 200: ValidationResponse, ...errorResponses(403, 404) },
      },
    },
    async (request) => validateStackable(deps, actorOf(request), request.body),
  );

  app.post(
    '/v1/redemptions',
    {
      schema: {
        tags: ['Redemptions'],
        operationId: 'redeemStackable',
        summary:
          'Redeem redeemables in one transaction; a failure answers 400 (404 for an unknown redeemable) with key = failure code and resource_id = the stored FAILURE record',
        body: StackableBody,
        response: { 200: RedemptionResponse, ...errorResponses(404) },
      },
    },
    async (request) => redeemStackable(deps, actorOf(request), request.body),
  );

  app.post(
    '/client/v1/redemptions',
    {
      schema: {
        tags: ['Client-side'],
        operationId: 'redeemStackableClientSide',
        summary: 'Redeem redeemables from a shop page (the project must allow client-side redemption)',
        body: StackableBody,
        response: { 200: RedemptionResponse, ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      await assertClientRedeem(deps.db, actor.projectId);
      return redeemStackable(deps, actor, request.body);
    },
  );
}
