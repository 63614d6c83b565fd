import { businessError, errors } from '../../domain/errors.ts';
import { metadataProblems } from '../../domain/metadata-schemas/metadata-problems.ts';
import type { CustomEventInput } from '../../api/custom-events.ts';
import { findCustomEventSchemaByName } from '../../store/custom-event-schemas.ts';
import { appendEvents } from '../../store/events.ts';
import { findProject } from '../../store/projects.ts';
import { inTransaction, makeEvent, type Actor, type Deps } from '../context.ts';
import { resolveCustomer, type CustomerObject } from '../customers/customers.ts';
import { earnPointsForCustomEvent } from '../loyalty/earning.ts';
import { convertReferral } from '../referrals/convert.ts';
import { asMetadataSchema, propertiesOf } from './schemas.ts';

// Tracking a custom event (seed 4.15, 6.2; platform reference 5.1; DECISIONS 24). The event name must
// have a schema in the project and the metadata must follow its properties; otherwise nothing is stored.
// An unknown customer is created. The event is stored in the log as the customer's
// `customer.custom_event` activity; in the same transaction its referral part converts a referral and the
// loyalty programs' custom-event earning rules credit points.

export interface SimpleCustomer {
  id: string;
  source_id: string | null;
  name: string | null;
  email: string | null;
  metadata: Record<string, unknown>;
  object: 'customer';
}

export interface TrackedEvent {
  object: 'event';
  type: string;
  customer: SimpleCustomer;
  referral: null;
  loyalty: null;
  metadata: Record<string, unknown>;
}

function simple(customer: CustomerObject): SimpleCustomer {
  return {
    id: customer.id,
    source_id: customer.source_id,
    name: customer.name,
    email: customer.email,
    metadata: customer.metadata,
    object: 'customer',
  };
}

/** Where a custom event came from: client-side calls may carry loyalty and referral parts only when allowed. */
export type EventChannel = 'server' | 'client';

export async function trackCustomEvent(deps: Deps, actor: Actor, input: CustomEventInput, channel: EventChannel): Promise<TrackedEvent> {
  const metadata = input.metadata ?? {};
  const referral = input.referral ?? null;
  const loyalty = input.loyalty ?? null;
  return inTransaction(deps, async (tx) => {
    // From a browser, loyalty effects (points from earning rules, referral conversions) are opt-in per
    // project: a public key must not be able to mint points unless the merchant allows it.
    const loyaltyAllowed = channel === 'server' || Boolean((await findProject(tx, actor.projectId))?.client_loyalty_events_enabled);
    if (!loyaltyAllowed && (referral !== null || loyalty !== null)) {
      throw errors.forbidden('Client-side custom events with loyalty or referral parts are turned off for this project (client_loyalty_events_enabled)');
    }
    const schema = await findCustomEventSchemaByName(tx, actor.projectId, input.event);
    if (!schema) {
      throw errors.invalidPayload(
        `Property .event names no custom event defined in this project: '${input.event}'; define it with a custom event schema first`,
      );
    }
    const problems = metadataProblems(asMetadataSchema(propertiesOf(schema)), metadata, { subject: `custom event ${input.event}` });
    if (problems.length > 0) {
      throw businessError('metadata_validation_failed', 'Metadata validation failed', { details: problems.join('; '), resourceType: 'event' });
    }
    const { customer } = await resolveCustomer(tx, deps, actor, input.customer, { createIfMissing: true });

    const logEvent = makeEvent(deps, actor, {
      type: 'customer.custom_event',
      activityType: 'customer.custom_event',
      activityCategory: 'ACTION',
      customerId: customer.id,
      data: {},
    });
    const stored = {
      id: logEvent.id,
      object: 'event' as const,
      type: input.event,
      customer: simple(customer),
      referral: referral === null ? null : { code: referral.code, referrer_id: referral.referrer_id ?? null },
      loyalty: loyalty === null ? null : { code: loyalty.code },
      metadata,
      created_at: logEvent.createdAt,
    };
    logEvent.entityId = logEvent.id;
    logEvent.data = {
      event: stored,
      event_schema: { id: schema.id, name: schema.name },
      customer,
      referral: stored.referral,
      loyalty: stored.loyalty,
    };
    // The event first, so the effects' own events follow it in the log.
    await appendEvents(tx, [logEvent]);

    if (referral !== null) {
      // A referral program whose conversion event is not this one skips the conversion (no error).
      await convertReferral(tx, deps, actor, {
        code: referral.code,
        customer: { id: customer.id },
        trigger: { type: 'custom_event', eventId: logEvent.id, eventName: input.event, eventSchemaId: schema.id },
      });
    }
    if (loyaltyAllowed) {
      // The custom-event earning rules of the project's loyalty programs; `loyalty.code` names the card
      // to credit (it must exist and be the customer's), otherwise every matching program's rules run.
      await earnPointsForCustomEvent(tx, deps, actor, {
        customer,
        event: { name: input.event, id: logEvent.id, metadata, schemaId: schema.id, schemaName: schema.name },
        loyaltyCardCode: loyalty?.code ?? null,
      });
    }
    return { object: 'event', type: input.event, customer: simple(customer), referral: null, loyalty: null, metadata };
  });
}
