import Type, { type Static } from 'typebox';
import { WEBHOOK_EVENT_KINDS } from '../domain/webhooks/event-kinds.ts';
import { Limit, Nullable } from './common.ts';

// Webhook configurations (seed 2.11, 4.4; platform reference 6.1) and Punchcard's delivery log.

const EventKind = Type.Enum([...WEBHOOK_EVENT_KINDS], {
  description: 'An event kind as the API names it (the historical `aded` spellings included) or its corrected `added` spelling; stored as given',
});

const TargetUrl = Type.String({ minLength: 1, maxLength: 2048, description: 'Absolute http(s) URL that receives the deliveries' });

export const WebhookBody = Type.Object({
  target_url: TargetUrl,
  events: Type.Array(EventKind, { minItems: 1, maxItems: 100, description: 'Event kinds that trigger a delivery; replaces the whole list on update' }),
  active: Type.Optional(Type.Boolean({ default: true, description: 'false switches the webhook off; default true' })),
});
export type WebhookInput = Static<typeof WebhookBody>;

export const WebhookObject = Type.Object({
  id: Type.String({ description: 'wh_…' }),
  object: Type.Literal('webhook'),
  created_at: Type.String({ format: 'date-time' }),
  target_url: Type.String(),
  events: Type.Array(Type.String()),
  active: Type.Boolean(),
});

export const WebhookList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('data'),
  data: Type.Array(WebhookObject),
  total: Type.Integer(),
});

export const WebhookParams = Type.Object({
  projectId: Type.String({ minLength: 1, description: 'Project id (proj_…)' }),
  webhookId: Type.String({ minLength: 1, description: 'Webhook id (wh_…)' }),
});

export const DeliveryStatus = Type.Enum(['PENDING', 'SUCCEEDED', 'FAILED', 'CANCELED']);

export const ListDeliveriesQuery = Type.Object({
  limit: Type.Optional(Limit),
  status: Type.Optional(DeliveryStatus),
  order: Type.Optional(Type.Enum(['created_at', '-created_at'], { description: 'Log order (created_at) or newest first (-created_at, default)' })),
  starting_after_id: Type.Optional(Type.String({ minLength: 1, description: 'Continue after this delivery (whs_…) in list order' })),
});
export type ListDeliveriesInput = Static<typeof ListDeliveriesQuery>;

export const AttemptOut = Type.Object({
  attempt: Type.Integer({ minimum: 1, description: 'The attempt\'s number over the delivery\'s life, re-sends included: 1, 2, 3 …' }),
  series_attempt: Type.Integer({ minimum: 1, description: 'Its number within its series (the first sending, or one re-send); 1 on a re-send\'s first try. Retry delays and the 12-attempt limit count within a series' }),
  at: Type.String({ format: 'date-time' }),
  response_status: Nullable(Type.Integer({ description: 'HTTP status the receiver answered; null when it did not answer' })),
  error: Nullable(
    Type.String({
      description:
        "Why the attempt failed; null on success. 'answered HTTP n', 'DNS: the host name did not resolve', 'target address not allowed'; for a public address also 'connection refused', 'timed out after n ms', 'TLS: …', 'connection reset' or 'not an HTTP answer' (inside the installation's allowed networks these read 'delivery failed')",
    }),
  ),
  duration_ms: Type.Integer(),
  request: Type.Optional(
    Type.Object(
      {
        url: Type.String(),
        headers: Type.Record(Type.String(), Type.String(), { description: 'The signature headers read (withheld)' }),
        body: Type.String({ description: 'The first 4096 bytes of the envelope sent' }),
        body_truncated: Type.Boolean(),
      },
      { description: 'Punchcard extension: what was sent (absent from attempts logged before it was kept)' },
    ),
  ),
  response: Type.Optional(
    Type.Object(
      {
        headers: Type.Record(Type.String(), Type.String()),
        body: Type.String({ description: 'The first 4096 bytes of the answer body' }),
        body_truncated: Type.Boolean(),
      },
      { description: 'Punchcard extension: the receiver\'s answer; absent when it did not answer' },
    ),
  ),
});

export const WebhookTokenObject = Type.Object({
  object: Type.Literal('webhook_token'),
  project_id: Type.String(),
  webhook_token: Type.String({ description: 'The secret that signs every delivery of the project (x-voucherify-signature, x-punchcard-signature)' }),
});

export const WebhookTestObject = Type.Object({
  object: Type.Literal('webhook_test'),
  webhook_id: Type.String(),
  event: Type.Object({
    id: Type.String(),
    type: Type.Literal('webhook.test'),
    created_at: Type.String({ format: 'date-time' }),
  }),
});

export const DeliveryObject = Type.Object({
  id: Type.String({ description: 'whs_…, also the `id` of the delivered envelope' }),
  object: Type.Literal('webhook_delivery'),
  webhook_id: Type.String(),
  type: Type.String({ description: 'Delivered event type (corrected `added` spelling)' }),
  event: Type.Object({ id: Type.String(), type: Type.String() }),
  status: DeliveryStatus,
  attempts: Type.Integer({ description: 'Attempts made so far, re-sends included (at most 12 per series: the first sending, and each re-send)' }),
  next_attempt_at: Nullable(Type.String({ format: 'date-time', description: 'When the next attempt is due; null while queued behind an earlier delivery or when finished' })),
  last_attempt_at: Nullable(Type.String({ format: 'date-time' })),
  last_response_status: Nullable(Type.Integer()),
  last_error: Nullable(Type.String()),
  attempt_log: Type.Array(AttemptOut),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  finished_at: Nullable(Type.String({ format: 'date-time' })),
});

export const DeliveryList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('data'),
  data: Type.Array(DeliveryObject),
  has_more: Type.Boolean(),
  more_starting_after: Type.Optional(Type.String()),
});

export const DeliveryParams = Type.Object({
  ...WebhookParams.properties,
  deliveryId: Type.String({ minLength: 1, description: 'Delivery id (whs_…)' }),
});

export const ReplayBody = Type.Object({
  since: Type.String({ format: 'date-time', description: 'Re-send the FAILED deliveries created at or after this instant, e.g. 2026-01-31T08:00:00Z' }),
});

export const ReplayResult = Type.Object({
  object: Type.Literal('webhook_delivery_replay'),
  webhook_id: Type.String(),
  since: Type.String({ format: 'date-time' }),
  replayed: Type.Integer({ description: 'How many FAILED deliveries were queued again' }),
});
