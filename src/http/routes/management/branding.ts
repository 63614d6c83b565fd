import Type from 'typebox';
import type { RouteContext, TypedApp } from '../../route-context.ts';
import * as branding from '../../../services/branding/branding.ts';
import { noContent } from '../../reply.ts';
import { BrandingBody, BrandingList, BrandingObject } from '../../../api/branding.ts';
import { errorResponses, NoContent } from '../../../api/common.ts';

// The project's branding (vendor management API): one per project, shown on the customer cockpit. The
// management key may act on any project; a console session on its own project (ADMIN changes, USER and
// VIEWER read; src/domain/auth/roles.ts).

const tags = ['Management: branding'];
const ProjectParams = Type.Object({ projectId: Type.String({ minLength: 1, description: 'Project id (proj_…)' }) });
const BrandingParams = Type.Object({
  projectId: Type.String({ minLength: 1, description: 'Project id (proj_…)' }),
  brandingId: Type.String({ minLength: 1, description: 'Branding id (brd_…)' }),
});

export function registerBrandingRoutes(app: TypedApp, { deps }: RouteContext): void {
  app.post(
    '/management/v1/projects/:projectId/branding',
    {
      schema: {
        tags,
        operationId: 'createBranding',
        summary: "Create the project's branding (one per project: a second answers 409 branding_exist)",
        params: ProjectParams,
        body: BrandingBody,
        response: { 200: BrandingObject, ...errorResponses(403, 404, 409) },
      },
    },
    async (request) => branding.createBranding(deps, request.params.projectId, request.body),
  );

  app.get(
    '/management/v1/projects/:projectId/branding',
    {
      schema: {
        tags,
        operationId: 'listBrandings',
        summary: "List the project's branding (none or one)",
        params: ProjectParams,
        response: { 200: BrandingList, ...errorResponses(403, 404) },
      },
    },
    async (request) => branding.listBrandings(deps, request.params.projectId),
  );

  app.get(
    '/management/v1/projects/:projectId/branding/:brandingId',
    {
      schema: {
        tags,
        operationId: 'getBranding',
        summary: "Get the project's branding",
        params: BrandingParams,
        response: { 200: BrandingObject, ...errorResponses(403, 404) },
      },
    },
    async (request) => branding.getBranding(deps, request.params.projectId, request.params.brandingId),
  );

  app.put(
    '/management/v1/projects/:projectId/branding/:brandingId',
    {
      schema: {
        tags,
        operationId: 'updateBranding',
        summary: 'Update the branding: members sent replace the stored ones, null clears one or a whole section',
        params: BrandingParams,
        body: BrandingBody,
        response: { 200: BrandingObject, ...errorResponses(403, 404) },
      },
    },
    async (request) => branding.changeBranding(deps, request.params.projectId, request.params.brandingId, request.body),
  );

  app.delete(
    '/management/v1/projects/:projectId/branding/:brandingId',
    {
      schema: {
        tags,
        operationId: 'deleteBranding',
        summary: 'Delete the branding: the cockpit goes back to the project name and neutral colours',
        params: BrandingParams,
        response: { 204: NoContent, ...errorResponses(403, 404) },
      },
    },
    async (request, reply) => {
      await branding.removeBranding(deps, request.params.projectId, request.params.brandingId);
      return noContent(reply);
    },
  );
}
