import type { FastifyRequest } from 'fastify';
import type { RouteContext, TypedApp } from '../../route-context.ts';
import * as projectUsers from '../../../services/users/project-users.ts';
import type { Caller } from '../../../services/users/project-users.ts';
import { noContent } from '../../reply.ts';
import { managementActorOf } from '../../plugins/auth.ts';
import { errorResponses, NoContent } from '../../../api/common.ts';
import { AssignUserBody, InvitationLink, InviteUserBody, PasswordResetLink, UpdateUserBody, UserList, UserObject } from '../../../api/users.ts';
import Type from 'typebox';

// The vendor's project users (management API). The management key may act on any project; a console
// session only on its own project, as an ADMIN to change anything (src/domain/auth/roles.ts), and it is
// told about that project only (src/services/users/project-users.ts).

const tags = ['Management: users'];
const ProjectParams = Type.Object({ projectId: Type.String({ minLength: 1, description: 'Project id (proj_…)' }) });
const UserParams = Type.Object({
  projectId: Type.String({ minLength: 1, description: 'Project id (proj_…)' }),
  userId: Type.String({ minLength: 1, description: 'User id (user_…) or login' }),
});

function callerOf(request: FastifyRequest): Caller {
  const principal = request.principal;
  return principal?.kind === 'user' ? { kind: 'user', userId: principal.userId, projectId: principal.projectId } : { kind: 'management' };
}

export function registerUserRoutes(app: TypedApp, { deps, authenticator }: RouteContext): void {
  app.post(
    '/management/v1/projects/:projectId/users',
    {
      schema: {
        tags,
        operationId: 'assignUser',
        summary: "Assign a user (by id or login) to the project with a role; from a console session, a login that has no account yet gets an invited one",
        params: ProjectParams,
        body: AssignUserBody,
        response: { 200: UserObject, ...errorResponses(403, 404, 409) },
      },
    },
    async (request) => projectUsers.assignUser(deps, managementActorOf(request), request.params.projectId, request.body, callerOf(request)),
  );

  app.get(
    '/management/v1/projects/:projectId/users',
    {
      schema: {
        tags,
        operationId: 'listUsers',
        summary: 'List the users of the project',
        params: ProjectParams,
        response: { 200: UserList, ...errorResponses(403, 404) },
      },
    },
    async (request) => projectUsers.listUsers(deps, request.params.projectId, callerOf(request)),
  );

  app.get(
    '/management/v1/projects/:projectId/users/:userId',
    {
      schema: {
        tags,
        operationId: 'getUser',
        summary: 'Get a user of the project',
        params: UserParams,
        response: { 200: UserObject, ...errorResponses(403, 404) },
      },
    },
    async (request) => projectUsers.getUser(deps, request.params.projectId, request.params.userId, callerOf(request)),
  );

  app.put(
    '/management/v1/projects/:projectId/users/:userId',
    {
      schema: {
        tags,
        operationId: 'updateUser',
        summary: "Change the user's role in the project (the project keeps at least one ADMIN)",
        params: UserParams,
        body: UpdateUserBody,
        response: { 200: UserObject, ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const user = await projectUsers.updateUserRole(deps, managementActorOf(request), request.params.projectId, request.params.userId, request.body, callerOf(request));
      authenticator.forgetUser(user.id);
      return user;
    },
  );

  app.delete(
    '/management/v1/projects/:projectId/users/:userId',
    {
      schema: {
        tags,
        operationId: 'unassignUser',
        summary: "Unassign the user from the project; their console sessions there end (not a user's only project, nor its last ADMIN)",
        params: UserParams,
        response: { 204: NoContent, ...errorResponses(403, 404) },
      },
    },
    async (request, reply) => {
      const userId = await projectUsers.unassignUser(deps, managementActorOf(request), request.params.projectId, request.params.userId, callerOf(request));
      authenticator.forgetUser(userId);
      return noContent(reply);
    },
  );

  app.post(
    '/management/v1/projects/users/invite',
    {
      schema: {
        tags,
        operationId: 'inviteUser',
        summary: "Invite a person with a role in each given project; the invitation link comes from …/invitation-link (no e-mail is sent). From a console session, an e-mail that has an account already joins the project the same way",
        body: InviteUserBody,
        response: { 204: NoContent, ...errorResponses(403, 404, 409) },
      },
    },
    async (request, reply) => {
      await projectUsers.inviteUser(deps, managementActorOf(request), request.body, callerOf(request));
      return noContent(reply);
    },
  );

  app.post(
    '/management/v1/projects/:projectId/users/:userId/invitation-link',
    {
      config: { secretAnswer: true },
      schema: {
        tags,
        operationId: 'createInvitationLink',
        summary: 'A new one-time link where an invited user sets their password, or (an account that has one, asked by a console session) signs in with it (Punchcard extension; earlier links stop working)',
        params: UserParams,
        response: { 200: InvitationLink, ...errorResponses(403, 404) },
      },
    },
    async (request) => projectUsers.invitationLink(deps, request.params.projectId, request.params.userId, callerOf(request)),
  );

  app.post(
    '/management/v1/projects/:projectId/users/:userId/password-reset-link',
    {
      config: { secretAnswer: true },
      schema: {
        tags,
        operationId: 'createPasswordResetLink',
        summary:
          "A new one-time link where an active user sets a new password, valid 24 hours (Punchcard extension; earlier links stop working, as do all once the password changes; using it ends the user's sessions). A console ADMIN may reset only users whose every project they administer",
        params: UserParams,
        response: { 200: PasswordResetLink, ...errorResponses(403, 404) },
      },
    },
    async (request) => projectUsers.passwordResetLink(deps, request.params.projectId, request.params.userId, callerOf(request)),
  );
}
