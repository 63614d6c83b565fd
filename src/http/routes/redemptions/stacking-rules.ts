import type { RouteContext, TypedApp } from '../../route-context.ts';
import * as rules from '../../../services/redemptions/stacking-rules.ts';
import { noContent } from '../../reply.ts';
import { errorResponses, NoContent } from '../../../api/common.ts';
import { StackingRulesBody, StackingRulesList, StackingRulesObject } from '../../../api/redemptions.ts';
import Type from 'typebox';

// A project's stacking rules through the management API (promotions reference 6.6): one set per project.

const tags = ['Management: stacking rules'];
const ProjectParams = Type.Object({ projectId: Type.String({ minLength: 1 }) });
const RulesParams = Type.Object({ projectId: Type.String({ minLength: 1 }), stackingRulesId: Type.String({ minLength: 1 }) });

export function registerStackingRulesRoutes(app: TypedApp, { deps }: RouteContext): void {
  app.post(
    '/management/v1/projects/:projectId/stacking-rules',
    {
      schema: {
        tags,
        operationId: 'createStackingRules',
        summary: "Set a project's stacking rules (members not sent keep their defaults); 409 stacking_rules_exist when it has some",
        params: ProjectParams,
        body: StackingRulesBody,
        response: { 200: StackingRulesObject, ...errorResponses(404, 409) },
      },
    },
    async (request) => rules.createStackingRules(deps, request.params.projectId, request.body),
  );

  app.get(
    '/management/v1/projects/:projectId/stacking-rules',
    {
      schema: {
        tags,
        operationId: 'listStackingRules',
        summary: "The project's stacking rules (empty when it uses the defaults)",
        params: ProjectParams,
        response: { 200: StackingRulesList, ...errorResponses(404) },
      },
    },
    async (request) => rules.listStackingRules(deps, request.params.projectId),
  );

  app.get(
    '/management/v1/projects/:projectId/stacking-rules/:stackingRulesId',
    {
      schema: { tags, operationId: 'getStackingRules', summary: 'Get stacking rules', params: RulesParams, response: { 200: StackingRulesObject, ...errorResponses(404) } },
    },
    async (request) => rules.getStackingRules(deps, request.params.projectId, request.params.stackingRulesId),
  );

  app.put(
    '/management/v1/projects/:projectId/stacking-rules/:stackingRulesId',
    {
      schema: {
        tags,
        operationId: 'updateStackingRules',
        summary: 'Update stacking rules; only the members sent change (null restores a default)',
        params: RulesParams,
        body: StackingRulesBody,
        response: { 200: StackingRulesObject, ...errorResponses(404) },
      },
    },
    async (request) => rules.updateStackingRules(deps, request.params.projectId, request.params.stackingRulesId, request.body),
  );

  app.delete(
    '/management/v1/projects/:projectId/stacking-rules/:stackingRulesId',
    {
      schema: {
        tags,
        operationId: 'deleteStackingRules',
        summary: 'Delete stacking rules: the project goes back to the defaults',
        params: RulesParams,
        response: { 204: NoContent, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      await rules.deleteStackingRules(deps, request.params.projectId, request.params.stackingRulesId);
      return noContent(reply);
    },
  );
}
