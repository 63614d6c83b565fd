import Type, { type Static } from 'typebox';
import { Nullable, StoredInteger } from './common.ts';

export const NotificationSetting = Type.Object({
  email: Type.Optional(Type.Boolean()),
  in_app: Type.Optional(Type.Boolean()),
  emails: Type.Optional(Type.Array(Type.String())),
});

export const UsageNotification = Type.Object({
  enabled: Type.Optional(Type.Boolean()),
  value: Type.Optional(Type.Integer({ minimum: 10, maximum: 90 })),
  in_app: Type.Optional(Type.Boolean()),
  emails: Type.Optional(Type.Array(Type.String())),
});

export const RateLimit = Type.Object({
  value: StoredInteger('bigint', { minimum: 1 }),
  duration: Type.String({ pattern: '^P(T?\\d+[SMHD])+$', description: 'ISO 8601 duration, e.g. PT1M' }),
});

export const Limits = Type.Object(
  {
    api_calls: Type.Optional(Type.Array(RateLimit, { maxItems: 5 })),
    bulk_api_calls: Type.Optional(Type.Array(RateLimit, { maxItems: 5 })),
  },
  { description: 'Per-project rate limits; absent means no limit (Punchcard default)' },
);

const ClientFlags = {
  client_redeem_enabled: Type.Optional(Type.Boolean()),
  client_publish_enabled: Type.Optional(Type.Boolean()),
  client_list_vouchers_enabled: Type.Optional(Type.Boolean()),
  client_create_customer_enabled: Type.Optional(Type.Boolean()),
  client_loyalty_events_enabled: Type.Optional(Type.Boolean()),
  client_set_voucher_expiration_date_enabled: Type.Optional(Type.Boolean()),
};

const Origin = Type.String({ minLength: 1, maxLength: 300, description: 'Origin such as https://shop.example.com, or *' });

const EditableFields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  description: Type.Optional(Type.String({ maxLength: 1000 })),
  timezone: Type.String({ minLength: 1, maxLength: 100 }),
  locale: Type.Optional(
    Nullable(
      Type.String({
        minLength: 1,
        maxLength: 35,
        description: 'A Punchcard extension: the language tag (en-GB, de-DE) the console writes dates and numbers in, in the project time zone; null: each reader\'s browser language',
      }),
    ),
  ),
  currency: Type.String({ pattern: '^[A-Z]{3}$' }),
  dial_code: Type.Optional(Nullable(Type.String({ maxLength: 10 }))),
  webhook_version: Type.Optional(Type.Literal('v2024-01-01')),
  client_trusted_domains: Type.Optional(Type.Array(Origin, { maxItems: 100 })),
  ...ClientFlags,
  webhooks_callout_notifications: Type.Optional(
    Type.Object({ distributions: Type.Optional(NotificationSetting), webhooks: Type.Optional(NotificationSetting) }),
  ),
  api_usage_notifications: Type.Optional(
    Type.Object({
      messages: Type.Optional(UsageNotification),
      api_calls: Type.Optional(UsageNotification),
      bulk_api_calls: Type.Optional(UsageNotification),
      webhook_calls: Type.Optional(UsageNotification),
      cycle_calls: Type.Optional(UsageNotification),
    }),
  ),
  limits: Type.Optional(Limits),
};

export const CreateProjectBody = Type.Object({
  ...EditableFields,
  case_sensitive_codes: Type.Boolean(),
  cluster_id: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
  api_version: Type.Optional(Type.Literal('v2018-08-01')),
  users: Type.Optional(
    Nullable(
      Type.Array(
        Type.Object({
          id: Type.Optional(Nullable(Type.String({ maxLength: 128, description: "An existing user's id; send this or login" }))),
          login: Type.Optional(Nullable(Type.String({ maxLength: 320, description: "An existing user's login (e-mail); send this or id" }))),
          role: Type.Optional(Nullable(Type.String({ maxLength: 64, description: 'ADMIN, USER, VIEWER or MERCHANT' }))),
        }),
        { maxItems: 100, description: 'Existing users to assign to the new project, each with a role (invite new people with /management/v1/projects/users/invite)' },
      ),
    ),
  ),
});
export type CreateProjectInput = Static<typeof CreateProjectBody>;

export const UpdateProjectBody = Type.Object({
  name: Type.Optional(EditableFields.name),
  description: EditableFields.description,
  timezone: Type.Optional(EditableFields.timezone),
  locale: EditableFields.locale,
  currency: Type.Optional(EditableFields.currency),
  dial_code: EditableFields.dial_code,
  webhook_version: EditableFields.webhook_version,
  client_trusted_domains: EditableFields.client_trusted_domains,
  ...ClientFlags,
  webhooks_callout_notifications: EditableFields.webhooks_callout_notifications,
  api_usage_notifications: EditableFields.api_usage_notifications,
  default_code_config: Type.Optional(Type.Object({ charset: Nullable(Type.String({ minLength: 1, maxLength: 200 })) })),
  limits: Type.Optional(Nullable(Limits)),
});
export type UpdateProjectInput = Static<typeof UpdateProjectBody>;

export const NotificationOut = Type.Object({ email: Type.Boolean(), in_app: Type.Boolean(), emails: Type.Array(Type.String()) });
export const UsageOut = Type.Object({
  enabled: Type.Boolean(),
  value: Type.Integer(),
  in_app: Type.Boolean(),
  emails: Type.Array(Type.String()),
});

export const ProjectObject = Type.Object({
  id: Type.String({ description: 'proj_…' }),
  name: Type.String(),
  description: Type.String(),
  timezone: Type.String(),
  locale: Nullable(Type.String({ description: 'A Punchcard extension: see the update body' })),
  is_default: Type.Boolean({ description: "A Punchcard extension: the server's default project, which cannot be deleted" }),
  currency: Type.String(),
  dial_code: Nullable(Type.String()),
  webhook_version: Type.String(),
  client_trusted_domains: Type.Array(Type.String()),
  client_redeem_enabled: Type.Boolean(),
  client_publish_enabled: Type.Boolean(),
  client_list_vouchers_enabled: Type.Boolean(),
  client_create_customer_enabled: Type.Boolean(),
  client_loyalty_events_enabled: Type.Boolean(),
  client_set_voucher_expiration_date_enabled: Type.Boolean(),
  webhooks_callout_notifications: Type.Record(Type.String(), NotificationOut),
  api_usage_notifications: Type.Record(Type.String(), UsageOut),
  cluster_id: Type.String(),
  case_sensitive_codes: Type.Boolean(),
  api_version: Type.String(),
  is_sandbox: Type.Boolean(),
  webhook_token: Nullable(
    Type.String({
      description:
        "Secret that signs this project’s webhook deliveries. Null for a console session whose role may not manage the project's webhooks (every role but ADMIN): whoever holds it can sign deliveries the project's receivers trust",
    }),
  ),
  default_code_config: Type.Optional(Type.Object({ charset: Nullable(Type.String()) })),
  limits: Type.Optional(Limits),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Nullable(Type.String({ format: 'date-time' })),
  object: Type.Literal('project'),
});

export const KeyPairOut = Type.Object({ app_id: Type.String(), app_token: Type.String() });

export const CreatedProjectObject = Type.Intersect([
  ProjectObject,
  Type.Object({
    server_side_key: KeyPairOut,
    client_side_key: KeyPairOut,
  }),
]);

export const ProjectList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('data'),
  data: Type.Array(ProjectObject),
  total: Type.Integer(),
});
