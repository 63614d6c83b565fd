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
  WebhookTestObject,
  WebhookTokenObject,
} from '../../../api/webhooks.ts';

const tags = ['Management: webhooks'];
const ProjectParams = IdParams('projectId', 'Project id (proj_…)');

export function registerWebhookRoutes(app: TypedApp, { deps, authenticator }: RouteContext): void {
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
        summary: "Punchcard extension: replay a webhook's FAILED deliveries since a time",
        description:
          'After a receiver outage: every delivery of the webhook that ended FAILED and was created at or after `since` is queued again, in log order, each with a fresh series of attempts.',
        params: WebhookParams,
        body: ReplayBody,
        response: { 200: ReplayResult, ...errorResponses(400, 404) },
      },
    },
    async (request) => webhooks.replayFailedDeliveries(deps, managementActorOf(request), request.params.projectId, request.params.webhookId, request.body.since),
  );

  app.post(
    '/management/v1/projects/:projectId/webhooks/:webhookId/test',
    {
      schema: {
        tags,
        operationId: 'sendWebhookTestEvent',
        summary: 'Punchcard extension: send a webhook.test event to this webhook',
        description:
          'Appends a `webhook.test` event (data.test is true) that only this webhook receives, whatever events it subscribes to. It is delivered like any other event: signed, retried, and listed in the delivery log, after the deliveries the webhook is still sending. A switched-off webhook answers 400.',
        params: WebhookParams,
        response: { 200: WebhookTestObject, ...errorResponses(400, 404) },
      },
    },
    async (request) => webhooks.sendTestEvent(deps, managementActorOf(request), request.params.projectId, request.params.webhookId),
  );

  app.post(
    '/management/v1/projects/:projectId/webhook-token/rotate',
    {
      config: { secretAnswer: true },
      schema: {
        tags,
        operationId: 'rotateWebhookToken',
        summary: "Punchcard extension: replace the project's webhook_token, the secret that signs deliveries",
        description:
          'Every attempt from now on, retries of earlier deliveries included, is signed with the new token, which the answer carries (also readable later as the project’s webhook_token by the roles that manage webhooks).',
        params: ProjectParams,
        response: { 200: WebhookTokenObject, ...errorResponses(404) },
      },
    },
    async (request) => {
      const rotated = await webhooks.rotateWebhookToken(deps, managementActorOf(request), request.params.projectId);
      // Cached project rows must not keep signing with the old token.
      authenticator.forgetProject(request.params.projectId);
      return rotated;
    },
  );
}
