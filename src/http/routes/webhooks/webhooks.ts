import type { RouteContext, TypedApp } from '../../route-context.ts';
import * as webhooks from '../../../services/webhooks/webhooks.ts';
import { managementActorOf } from '../../plugins/auth.ts';
import { noContent } from '../../reply.ts';
import { errorResponses, IdParams, NoContent } from '../../../api/common.ts';
import {
  DeliveryList,
  DeliveryObject,
  DeliveryParams,
  ListDeliveriesQuery,
  ReplayBody,
  ReplayResult,
  WebhookBody,
  WebhookList,
  WebhookObject,
  WebhookParams,
} from '../../../api/webhooks.ts';

const tags = ['Management: webhooks'];
const ProjectParams = IdParams('projectId', 'Project id (proj_…)');

export function registerWebhookRoutes(app: TypedApp, { deps }: RouteContext): void {
  app.post(
    '/management/v1/projects/:projectId/webhooks',
    {
      schema: {
        tags,
        operationId: 'createWebhook',
        summary: 'Create a webhook configuration; deliveries are signed with the project’s webhook_token',
        params: ProjectParams,
        body: WebhookBody,
        response: { 200: WebhookObject, ...errorResponses(404) },
      },
    },
    async (request) => webhooks.createWebhook(deps, managementActorOf(request), request.params.projectId, request.body),
  );

  app.get(
    '/management/v1/projects/:projectId/webhooks',
    {
      schema: {
        tags,
        operationId: 'listWebhooks',
        summary: 'List the webhook configurations of a project',
        params: ProjectParams,
        response: { 200: WebhookList, ...errorResponses(404) },
      },
    },
    async (request) => webhooks.listWebhooks(deps, request.params.projectId),
  );

  app.get(
    '/management/v1/projects/:projectId/webhooks/:webhookId',
    {
      schema: {
        tags,
        operationId: 'getWebhook',
        summary: 'Get a webhook configuration',
        params: WebhookParams,
        response: { 200: WebhookObject, ...errorResponses(404) },
      },
    },
    async (request) => webhooks.getWebhook(deps, request.params.projectId, request.params.webhookId),
  );

  app.put(
    '/management/v1/projects/:projectId/webhooks/:webhookId',
    {
      schema: {
        tags,
        operationId: 'updateWebhook',
        summary: 'Replace a webhook configuration: target_url and events are required, active defaults to true',
        params: WebhookParams,
        body: WebhookBody,
        response: { 200: WebhookObject, ...errorResponses(404) },
      },
    },
    async (request) =>
      webhooks.updateWebhook(deps, managementActorOf(request), request.params.projectId, request.params.webhookId, request.body),
  );

  app.delete(
    '/management/v1/projects/:projectId/webhooks/:webhookId',
    {
      schema: {
        tags,
        operationId: 'deleteWebhook',
        summary: 'Delete a webhook configuration; its deliveries not yet sent are canceled',
        params: WebhookParams,
        response: { 204: NoContent, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      await webhooks.deleteWebhook(deps, managementActorOf(request), request.params.projectId, request.params.webhookId);
      return noContent(reply);
    },
  );

  app.get(
    '/management/v1/projects/:projectId/webhooks/:webhookId/deliveries',
    {
      schema: {
        tags,
        operationId: 'listWebhookDeliveries',
        summary: 'Punchcard extension: the deliveries of a webhook with their attempts, newest first, filterable by status',
        params: WebhookParams,
        querystring: ListDeliveriesQuery,
        response: { 200: DeliveryList, ...errorResponses(404) },
      },
    },
    async (request) => webhooks.listDeliveries(deps, request.params.projectId, request.params.webhookId, request.query),
  );

  app.post(
    '/management/v1/projects/:projectId/webhooks/:webhookId/deliveries/:deliveryId/resend',
    {
      schema: {
        tags,
        operationId: 'resendWebhookDelivery',
        summary: 'Punchcard extension: send a FAILED or SUCCEEDED delivery again',
        description:
          'Queues the delivery again with a fresh series of attempts (its attempt log keeps the earlier ones). It is sent after the delivery its webhook is sending now, so a receiver may get it after newer events. A PENDING or CANCELED delivery answers 400.',
        params: DeliveryParams,
        response: { 200: DeliveryObject, ...errorResponses(400, 404) },
      },
    },
    async (request) =>
      webhooks.resendDelivery(deps, managementActorOf(request), request.params.projectId, request.params.webhookId, request.params.deliveryId),
  );

  app.post(
    '/management/v1/projects/:projectId/webhooks/:webhookId/deliveries/replay',
    {
      schema: {
        tags,
        operationId: 'replayWebhookDeliveries',
        summary: 'Punchcard extension: send again every FAILED delivery of a webhook since a time',
        description:
          'After a receiver outage: every delivery of the webhook that ended FAILED and was created at or after `since` is queued again, in log order, each with a fresh series of attempts.',
        params: WebhookParams,
        body: ReplayBody,
        response: { 200: ReplayResult, ...errorResponses(400, 404) },
      },
    },
    async (request) => webhooks.replayFailedDeliveries(deps, managementActorOf(request), request.params.projectId, request.params.webhookId, request.body.since),
  );
}
