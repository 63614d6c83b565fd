import Type, { type Static } from 'typebox';
import { Nullable } from './common.ts';

// Consents (the vendor SDK's Consents and ConsentsListResponse; customers' consents as
// CustomersUpdateConsentsBody): the definitions a project keeps through the management API, the list both
// API sides read, and a customer's answers.

const Text = (max: number, description?: string) => Type.String({ maxLength: max, ...(description ? { description } : {}) });
const Name = Type.String({ minLength: 1, maxLength: 255 });
const ConsentId = Type.String({ minLength: 1, maxLength: 255, description: 'cnst_…' });

export const MAX_GROUP_CONSENTS = 200;

export const ConsentBody = Type.Object({
  name: Name,
  description: Type.Optional(Nullable(Text(1000))),
  category: Type.Optional(Nullable(Text(255, 'A label such as marketing or newsletter'))),
});
export type ConsentInput = Static<typeof ConsentBody>;

export const ConsentUpdateBody = Type.Partial(ConsentBody, { description: 'Only the members sent change' });
export type ConsentUpdateInput = Static<typeof ConsentUpdateBody>;

export const ConsentGroupBody = Type.Object({
  name: Name,
  description: Type.Optional(Nullable(Text(1000))),
  consents: Type.Array(ConsentId, { maxItems: MAX_GROUP_CONSENTS, uniqueItems: true, description: "The group's consents (ids of the project's consents), in display order" }),
});
export type ConsentGroupInput = Static<typeof ConsentGroupBody>;

export const ConsentGroupUpdateBody = Type.Partial(ConsentGroupBody, { description: 'Only the members sent change' });
export type ConsentGroupUpdateInput = Static<typeof ConsentGroupUpdateBody>;

export const ConsentObject = Type.Object({
  id: Type.String({ description: 'cnst_…' }),
  name: Type.String(),
  description: Nullable(Type.String()),
  category: Nullable(Type.String()),
  created_at: Type.String(),
  updated_at: Type.Optional(Type.String()),
  object: Type.Literal('consent'),
});
export type ConsentOut = Static<typeof ConsentObject>;

export const ConsentGroupObject = Type.Object({
  id: Type.String({ description: 'cngr_…' }),
  name: Type.String(),
  description: Nullable(Type.String()),
  consents: Type.Array(Type.String()),
  created_at: Type.String(),
  updated_at: Type.Optional(Type.String()),
  object: Type.Literal('consent_group'),
});
export type ConsentGroupOut = Static<typeof ConsentGroupObject>;

const ListOf = <T extends typeof ConsentObject | typeof ConsentGroupObject>(item: T) =>
  Type.Object({ object: Type.Literal('list'), total: Type.Integer(), data_ref: Type.Literal('data'), data: Type.Array(item) });

export const ConsentList = ListOf(ConsentObject);
export const ConsentGroupList = ListOf(ConsentGroupObject);

/** `GET /v1/consents`, `GET /client/v1/consents`: every group and every consent of the project. */
export const ConsentsListResponse = Type.Object({ groups: ConsentGroupList, consents: ConsentList });
export type ConsentsListOut = Static<typeof ConsentsListResponse>;

/**
 * A customer's answers: consent ids as keys, true to grant (opt in) and false to withdraw (opt out);
 * `unsubscribed: true` withdraws every consent the customer granted before the others apply.
 */
export const CustomerConsentsBody = Type.Record(Type.String({ minLength: 1, maxLength: 255 }), Type.Boolean(), {
  maxProperties: MAX_GROUP_CONSENTS + 1,
  description: '{"cnst_…": true|false, …, "unsubscribed": true}',
});
export type CustomerConsentsInput = Static<typeof CustomerConsentsBody>;

/** A customer's answers as stored (a Punchcard extension for preference pages). */
export const CustomerConsentList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('data'),
  data: Type.Array(
    Type.Object({
      consent_id: Type.String(),
      granted: Type.Boolean({ description: 'true: opted in; false: opted out' }),
      updated_at: Type.String({ description: 'When the customer last answered' }),
      object: Type.Literal('customer_consent'),
    }),
  ),
  total: Type.Integer(),
});
export type CustomerConsentListOut = Static<typeof CustomerConsentList>;
