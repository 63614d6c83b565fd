import type { FastifyRequest } from 'fastify';
import type { RouteContext, TypedApp } from '../../route-context.ts';
import * as projectUsers from '../../../services/users/project-users.ts';
import type { Caller } from '../../../services/users/project-users.ts';
import { noContent } from '../../reply.ts';
import { managementActorOf } from '../../plugins/auth.ts';
import { errorResponses, NoContent } from '../../../api/common.ts';
import { AssignUserBody, InvitationLink, InviteUserBody, UpdateUserBody, UserList, UserObject } from '../../../api/users.ts';
import Type from 'typebox';

// The vendor's project users (management API). The management key may act on any project; a console
// session only on its own project, as an ADMIN to change anything (src/domain/auth/roles.ts).

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
        summary: 'Assign an existing user (by id or login) to the project with a role',
        params: ProjectParams,
        body: AssignUserBody,
        response: { 200: UserObject, ...errorResponses(403, 404, 409) },
      },
    },
    async (request) => projectUsers.assignUser(deps, managementActorOf(request), request.params.projectId, request.body),
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
    async (request) => projectUsers.listUsers(deps, request.params.projectId),
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
    async (request) => projectUsers.getUser(deps, request.params.projectId, request.params.userId),
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
      const user = await projectUsers.updateUserRole(deps, managementActorOf(request), request.params.projectId, request.params.userId, request.body);
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
      const userId = await projectUsers.unassignUser(deps, managementActorOf(request), request.params.projectId, request.params.userId);
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
        summary: 'Invite a new user with a role in each given project; the invitation link comes from …/invitation-link (no e-mail is sent)',
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
        summary: 'A new one-time link where an invited user sets their password (Punchcard extension; earlier links stop working)',
        params: UserParams,
        response: { 200: InvitationLink, ...errorResponses(403, 404) },
      },
    },
    async (request) => projectUsers.invitationLink(deps, request.params.projectId, request.params.userId, callerOf(request)),
  );
}
