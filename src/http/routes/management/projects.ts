import type { FastifyRequest } from 'fastify';
import type { RouteContext, TypedApp } from '../../route-context.ts';
import { roleAllows } from '../../../domain/auth/roles.ts';
import { noContent } from '../../reply.ts';
import * as projects from '../../../services/projects/projects.ts';
import { managementActorOf } from '../../plugins/auth.ts';
import type { Caller } from '../../../services/users/project-users.ts';
import { errorResponses, IdParams, NoContent } from '../../../api/common.ts';
import { CreateProjectBody, CreatedProjectObject, ProjectList, ProjectObject, UpdateProjectBody } from '../../../api/projects.ts';

const tags = ['Management: projects'];
const ProjectParams = IdParams('projectId', 'Project id (proj_…)');

/** What the webhook token lets its holder do, as the API's own route: set up receivers that trust it. */
const WEBHOOK_TOKEN_ACT = ['POST', '/management/v1/projects/:projectId/webhooks'] as const;

/**
 * The project as the caller may see it. The webhook token signs the deliveries the project's receivers
 * trust, so it is shown only to a caller that may manage the webhooks itself (the management key, an
 * ADMIN's session); other console roles read the project with the token as null, as customers' cockpit
 * links are hidden from a caller that may not use them (src/http/routes/customers/customers.ts).
 */
function asSeenBy<P extends { webhook_token: string }>(request: FastifyRequest, project: P): Omit<P, 'webhook_token'> & { webhook_token: string | null } {
  const principal = request.principal;
  if (principal?.kind === 'management') return project;
  if (principal?.kind === 'user' && roleAllows(principal.role, ...WEBHOOK_TOKEN_ACT)) return project;
  return { ...project, webhook_token: null };
}

/** Who asks: the management key, or a console session (the organisation's owner, src/domain/auth/roles.ts). */
function callerOf(request: FastifyRequest): Caller {
  const principal = request.principal;
  return principal?.kind === 'user' ? { kind: 'user', userId: principal.userId, projectId: principal.projectId } : { kind: 'management' };
}

export function registerProjectRoutes(app: TypedApp, { deps, authenticator }: RouteContext): void {
  app.post(
    '/management/v1/projects',
    {
      config: { secretAnswer: true },
      schema: {
        tags,
        operationId: 'createProject',
        summary:
          "Create a project; the answer carries its server and client keys, shown only this once. The organisation's owner may create one from a console session and becomes its ADMIN",
        body: CreateProjectBody,
        response: { 200: CreatedProjectObject, ...errorResponses() },
      },
    },
    async (request) => {
      const principal = request.principal;
      const creator = principal?.kind === 'user' ? { userId: principal.userId, login: principal.login } : undefined;
      return projects.createProject(deps, managementActorOf(request), request.body, creator ? { creator } : {});
    },
  );

  app.get(
    '/management/v1/projects',
    {
      schema: {
        tags,
        operationId: 'listProjects',
        summary: "List projects (the management key, or the organisation's owner from a console session: then without webhook tokens)",
        response: { 200: ProjectList, ...errorResponses() },
      },
    },
    async (request) => {
      // A session's role is its project's; another project's webhook token is read in that project's settings.
      const all = await projects.listProjects(deps);
      const data = request.principal?.kind === 'user' ? all.map((project) => ({ ...project, webhook_token: null })) : all;
      return { object: 'list' as const, data_ref: 'data' as const, data, total: data.length };
    },
  );

  app.get(
    '/management/v1/projects/:projectId',
    {
      schema: { tags, operationId: 'getProject', summary: 'Get a project', params: ProjectParams, response: { 200: ProjectObject, ...errorResponses(404) } },
    },
    async (request) => asSeenBy(request, await projects.getProject(deps, request.params.projectId)),
  );

  app.put(
    '/management/v1/projects/:projectId',
    {
      schema: {
        tags,
        operationId: 'updateProject',
        summary: 'Update a project; only the members sent change',
        params: ProjectParams,
        body: UpdateProjectBody,
        response: { 200: ProjectObject, ...errorResponses(404) },
      },
    },
    async (request) => {
      const updated = await projects.updateProject(deps, managementActorOf(request), request.params.projectId, request.body);
      authenticator.forgetProject(updated.id);
      return asSeenBy(request, updated);
    },
  );

  app.delete(
    '/management/v1/projects/:projectId',
    {
      schema: {
        tags,
        operationId: 'deleteProject',
        summary:
          "Delete a project: its keys, tokens and console sessions stop working at once. The default project and the last one are protected; the organisation's owner may delete one from a console session, but not the session's own",
        params: ProjectParams,
        response: { 204: NoContent, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      await projects.deleteProject(deps, managementActorOf(request), request.params.projectId, callerOf(request));
      authenticator.forgetProject(request.params.projectId);
      return noContent(reply);
    },
  );
}
