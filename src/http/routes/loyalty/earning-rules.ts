import type { RouteContext, TypedApp } from '../../route-context.ts';
import * as rules from '../../../services/loyalty/earning-rules.ts';
import { actorOf } from '../../plugins/auth.ts';
import { noContent } from '../../reply.ts';
import { errorResponses, IdParams, NoContent } from '../../../api/common.ts';
import {
  CreateEarningRulesBody,
  EarningRuleArray,
  EarningRuleList,
  EarningRuleObject,
  EarningRuleParams,
  ListEarningRulesQuery,
  UpdateEarningRuleBody,
} from '../../../api/earning-rules.ts';

// Earning rules of a loyalty program (loyalty reference 4.1).

const tags = ['Loyalty earning rules'];
const CampaignParams = IdParams('campaignId', 'Loyalty campaign id (camp_…) or name');

export function registerEarningRuleRoutes(app: TypedApp, { deps }: RouteContext): void {
  app.get(
    '/v1/loyalties/:campaignId/earning-rules',
    {
      schema: {
        tags,
        operationId: 'listEarningRules',
        summary: "List a program's earning rules, oldest first by default",
        params: CampaignParams,
        querystring: ListEarningRulesQuery,
        response: { 200: EarningRuleList, ...errorResponses(404) },
      },
    },
    async (request) => rules.listEarningRules(deps, actorOf(request), request.params.campaignId, request.query),
  );

  app.post(
    '/v1/loyalties/:campaignId/earning-rules',
    {
      schema: {
        tags,
        operationId: 'createEarningRules',
        summary: 'Create earning rules (an array; all are created or none) and answer them as an array',
        params: CampaignParams,
        body: CreateEarningRulesBody,
        response: { 200: EarningRuleArray, ...errorResponses(404) },
      },
    },
    async (request) => rules.createEarningRules(deps, actorOf(request), request.params.campaignId, request.body),
  );

  app.get(
    '/v1/loyalties/:campaignId/earning-rules/:earningRuleId',
    {
      schema: { tags, operationId: 'getEarningRule', summary: 'Get an earning rule', params: EarningRuleParams, response: { 200: EarningRuleObject, ...errorResponses(404) } },
    },
    async (request) => rules.getEarningRule(deps, actorOf(request), request.params.campaignId, request.params.earningRuleId),
  );

  app.put(
    '/v1/loyalties/:campaignId/earning-rules/:earningRuleId',
    {
      schema: {
        tags,
        operationId: 'updateEarningRule',
        summary: 'Update an earning rule; only the members sent change',
        params: EarningRuleParams,
        body: UpdateEarningRuleBody,
        response: { 200: EarningRuleObject, ...errorResponses(404) },
      },
    },
    async (request) => rules.updateEarningRule(deps, actorOf(request), request.params.campaignId, request.params.earningRuleId, request.body),
  );

  app.delete(
    '/v1/loyalties/:campaignId/earning-rules/:earningRuleId',
    {
      schema: { tags, operationId: 'deleteEarningRule', summary: 'Delete an earning rule', params: EarningRuleParams, response: { 204: NoContent, ...errorResponses(404) } },
    },
    async (request, reply) => {
      await rules.deleteEarningRule(deps, actorOf(request), request.params.campaignId, request.params.earningRuleId);
      return noContent(reply);
    },
  );

  for (const [action, active] of [['enable', true], ['disable', false]] as const) {
    app.post(
      `/v1/loyalties/:campaignId/earning-rules/:earningRuleId/${action}`,
      {
        schema: {
          tags,
          operationId: `${action}EarningRule`,
          summary: active ? 'Enable an earning rule' : 'Disable an earning rule: it gives no points until enabled, whatever its dates',
          params: EarningRuleParams,
          response: { 200: EarningRuleObject, ...errorResponses(404) },
        },
      },
      async (request) => rules.setEarningRuleActive(deps, actorOf(request), request.params.campaignId, request.params.earningRuleId, active),
    );
  }
}
