import Type from 'typebox';
import { PASSWORD_MAX_LENGTH } from '../lib/passwords.ts';
import { Nullable } from './common.ts';

// Project users (the vendor's management API) and the console's own sign-in routes.

const RoleName = Type.String({ maxLength: 64, description: 'ADMIN, USER, VIEWER or MERCHANT (README "Console")' });

export const UserObject = Type.Object(
  {
    id: Type.String({ description: 'user_…' }),
    login: Type.String({ description: 'The e-mail address, lower-cased: what the user signs in with' }),
    email: Type.String(),
    first_name: Nullable(Type.String()),
    last_name: Nullable(Type.String()),
    projects: Type.Record(Type.String(), Type.String(), { description: 'Project id → the user\'s role there' }),
    is_owner: Type.Boolean({ description: 'The organisation\'s owner (the first admin)' }),
    status: Type.Union([Type.Literal('invited'), Type.Literal('active')], {
      description:
        "Punchcard extension: 'invited' until the person has set a password, then 'active'. Answered to a console session, it is the status in that project: 'invited' until the person signed in after being added there",
    }),
  },
  { additionalProperties: true },
);

export const UserList = Type.Object({
  object: Type.Literal('list'),
  data_ref: Type.Literal('data'),
  data: Type.Array(UserObject),
  total: Type.Integer(),
});

export const AssignUserBody = Type.Object({
  id: Type.Optional(Nullable(Type.String({ maxLength: 128, description: 'The user\'s id; send this or login' }))),
  login: Type.Optional(Nullable(Type.String({ maxLength: 320, description: 'The user\'s login (e-mail); send this or id' }))),
  role: Type.Optional(Nullable(RoleName)),
});

export const UpdateUserBody = Type.Object({ role: Type.Optional(Nullable(RoleName)) });

export const InviteUserBody = Type.Object({
  email: Type.Optional(Nullable(Type.String({ maxLength: 320 }))),
  first_name: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  last_name: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  projects: Type.Optional(
    Nullable(Type.Record(Type.String({ maxLength: 128 }), RoleName, { maxProperties: 100, description: 'Project id → role in that project' })),
  ),
});

export const InvitationLink = Type.Object({
  object: Type.Literal('invitation_link'),
  user_id: Type.String(),
  url: Type.String({ description: 'One-time link where the invited user sets a password; hand it to them yourself (Punchcard sends no e-mail)' }),
  expires_at: Type.String(),
});

export const PasswordResetLink = Type.Object({
  object: Type.Literal('password_reset_link'),
  user_id: Type.String(),
  url: Type.String({ description: 'One-time link where the user sets a new password; hand it to them yourself (Punchcard sends no e-mail)' }),
  expires_at: Type.String(),
});

const Password = Type.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH });
const Email = Type.String({ minLength: 1, maxLength: 320 });
const LinkToken = Type.String({ minLength: 1, maxLength: 200, description: 'The token from the one-time link' });

export const SignInBody = Type.Object({
  email: Email,
  password: Password,
  project_id: Type.Optional(Type.String({ maxLength: 128, description: 'Project to work in; default: the default project, else the first' })),
});

export const SetupBody = Type.Object({
  token: LinkToken,
  email: Type.String({ minLength: 3, maxLength: 320, pattern: '^[^@\\s]+@[^@\\s]+$' }),
  password: Password,
  first_name: Type.Optional(Type.String({ maxLength: 200 })),
  last_name: Type.Optional(Type.String({ maxLength: 200 })),
});

export const AcceptInvitationBody = Type.Object({ token: LinkToken, password: Password });

export const ChangePasswordBody = Type.Object({
  current_password: Password,
  new_password: Type.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH, description: 'At least 10 characters' }),
});

export const PasswordChanged = Type.Object({
  object: Type.Literal('password_changed'),
  sessions_ended: Type.Integer({ description: 'How many other sessions of the user ended (this one stays)' }),
});

export const PasswordResetTokenBody = Type.Object({ token: LinkToken });

export const PasswordResetBody = Type.Object({ token: LinkToken, password: Password });

export const PasswordResetPreview = Type.Object({
  object: Type.Literal('password_reset'),
  email: Type.String({ description: 'The account the link resets' }),
  project: Type.Object({ id: Type.String(), name: Type.String() }, { description: 'The project (shop) the link was issued in; the new session works there' }),
  expires_at: Type.String(),
});

export const SwitchProjectBody = Type.Object({ project_id: Type.String({ minLength: 1, maxLength: 128 }) });

export const ConsoleSession = Type.Object({
  object: Type.Literal('console_session'),
  user: Type.Object({
    id: Type.String(),
    login: Type.String(),
    email: Type.String(),
    first_name: Nullable(Type.String()),
    last_name: Nullable(Type.String()),
    is_owner: Type.Boolean(),
  }),
  project: Type.Object({
    id: Type.String(),
    name: Type.String(),
    timezone: Type.String({ description: "The console writes the project's dates and times in this time zone" }),
    locale: Nullable(Type.String({ description: "…and in this language's format; null: the browser's language" })),
  }),
  role: Type.String(),
  projects: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), role: Type.String() })),
  csrf_token: Type.String({ description: 'Send it back in the X-CSRF-Token header with every change' }),
  expires_at: Type.String(),
  permissions: Type.Array(Type.String(), {
    description:
      "What the role may call with this session, as `METHOD /route/:pattern` (e.g. `POST /v1/campaigns/:campaignId/disable`; `:projectId` is the session's project). The server refuses anything else with missing_required_permission",
  }),
});

export const SetupStatus = Type.Object({
  object: Type.Literal('console_setup'),
  needed: Type.Boolean({ description: 'True while no console user exists: the first admin is still to be created' }),
});

export const SignedOutEverywhere = Type.Object({ object: Type.Literal('sessions_revoked'), revoked: Type.Integer() });
