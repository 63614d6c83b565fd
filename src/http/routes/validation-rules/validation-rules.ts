import type { RouteContext, TypedApp } from '../../route-context.ts';
import * as assignments from '../../../services/validation-rules/assignments.ts';
import * as rules from '../../../services/validation-rules/validation-rules.ts';
import { actorOf } from '../../plugins/auth.ts';
import { noContent } from '../../reply.ts';
import { errorResponses, NoContent } from '../../../api/common.ts';
import {
  AssignmentList,
  AssignmentObject,
  AssignmentParams,
  CreateAssignmentBody,
  CreateAssignmentQuery,
  CreateValidationRuleBody,
  ListAllAssignmentsQuery,
  ListRuleAssignmentsQuery,
  ListValidationRulesQuery,
  UpdateValidationRuleBody,
  ValidationRuleList,
  ValidationRuleObject,
  ValidationRuleParams,
} from '../../../api/validation-rules.ts';

const tags = ['Validation Rules'];

export function registerValidationRuleRoutes(app: TypedApp, { deps }: RouteContext): void {
  app.post(
    '/v1/validation-rules',
    {
      schema: {
        tags,
        operationId: 'createValidationRule',
        summary: 'Create a validation rule; an invalid rule definition is 400 invalid_validation_rules with details',
        body: CreateValidationRuleBody,
        response: { 200: ValidationRuleObject, ...errorResponses(409) },
      },
    },
    async (request) => rules.createRule(deps, actorOf(request), request.body),
  );

  app.get(
    '/v1/validation-rules',
    {
      schema: {
        tags,
        operationId: 'listValidationRules',
        summary: 'List validation rules, newest first unless ordered otherwise',
        querystring: ListValidationRulesQuery,
        response: { 200: ValidationRuleList, ...errorResponses() },
      },
    },
    async (request) => rules.listRules(deps, actorOf(request), request.query),
  );

  app.get(
    '/v1/validation-rules/:validationRuleId',
    {
      schema: {
        tags,
        operationId: 'getValidationRule',
        summary: 'Get a validation rule',
        params: ValidationRuleParams,
        response: { 200: ValidationRuleObject, ...errorResponses(404) },
      },
    },
    async (request) => rules.getRule(deps, actorOf(request), request.params.validationRuleId),
  );

  app.put(
    '/v1/validation-rules/:validationRuleId',
    {
      schema: {
        tags,
        operationId: 'updateValidationRule',
        summary: 'Update a validation rule: members sent replace the stored ones, the others stay',
        params: ValidationRuleParams,
        body: UpdateValidationRuleBody,
        response: { 200: ValidationRuleObject, ...errorResponses(404, 409) },
      },
    },
    async (request) => rules.updateRule(deps, actorOf(request), request.params.validationRuleId, request.body),
  );

  app.delete(
    '/v1/validation-rules/:validationRuleId',
    {
      schema: {
        tags,
        operationId: 'deleteValidationRule',
        summary: 'Delete a validation rule together with its assignments',
        params: ValidationRuleParams,
        response: { 204: NoContent, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      await rules.deleteRule(deps, actorOf(request), request.params.validationRuleId);
      return noContent(reply);
    },
  );

  app.post(
    '/v1/validation-rules/:validationRuleId/assignments',
    {
      schema: {
        tags,
        operationId: 'createValidationRuleAssignment',
        summary: 'Assign a validation rule to a voucher or campaign (related_object_type + related_object_id, or a shorthand key)',
        params: ValidationRuleParams,
        querystring: CreateAssignmentQuery,
        body: CreateAssignmentBody,
        response: { 200: AssignmentObject, ...errorResponses(404, 409) },
      },
    },
    async (request) =>
      assignments.createAssignment(deps, actorOf(request), request.params.validationRuleId, request.body, request.query.force ?? false),
  );

  app.get(
    '/v1/validation-rules/:validationRuleId/assignments',
    {
      schema: {
        tags,
        operationId: 'listValidationRuleAssignments',
        summary: "List a rule's assignments, newest first by default; an unknown rule answers an empty list",
        params: ValidationRuleParams,
        querystring: ListRuleAssignmentsQuery,
        response: { 200: AssignmentList, ...errorResponses() },
      },
    },
    async (request) => assignments.listRuleAssignments(deps, actorOf(request), request.params.validationRuleId, request.query),
  );

  app.delete(
    '/v1/validation-rules/:validationRuleId/assignments/:assignmentId',
    {
      schema: {
        tags,
        operationId: 'deleteValidationRuleAssignment',
        summary: 'Delete an assignment of a validation rule',
        params: AssignmentParams,
        response: { 204: NoContent, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      await assignments.deleteAssignment(deps, actorOf(request), request.params.validationRuleId, request.params.assignmentId);
      return noContent(reply);
    },
  );

  app.get(
    '/v1/validation-rules-assignments',
    {
      schema: {
        tags,
        operationId: 'listAllValidationRuleAssignments',
        summary: 'List assignments of every rule, filtered by related object or rule',
        querystring: ListAllAssignmentsQuery,
        response: { 200: AssignmentList, ...errorResponses() },
      },
    },
    async (request) => assignments.listAllAssignments(deps, actorOf(request), request.query),
  );
}
