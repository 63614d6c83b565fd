import Type from 'typebox';
import type { RouteContext, TypedApp } from '../../route-context.ts';
import * as apiKeys from '../../../services/projects/api-keys.ts';
import { managementActorOf } from '../../plugins/auth.ts';
import { ApiKeyList, RotatedApiKey } from '../../../api/api-keys.ts';
import { errorResponses } from '../../../api/common.ts';

// A project's application keys (Punchcard extension; the vendor manages keys in its dashboard only). The
// management key may act on any project; a console session only as an ADMIN of its own project
// (src/domain/auth/roles.ts), for reading the ids too.

const tags = ['Management: API keys'];
const ProjectParams = Type.Object({ projectId: Type.String({ minLength: 1, description: 'Project id (proj_…)' }) });
const KeyParams = Type.Object({
  projectId: Type.String({ minLength: 1, description: 'Project id (proj_…)' }),
  keyId: Type.String({ minLength: 1, description: 'Key id (key_…) or its app id' }),
});

export function registerApiKeyRoutes(app: TypedApp, { deps, authenticator }: RouteContext): void {
  app.get(
    '/management/v1/projects/:projectId/api-keys',
    {
      schema: {
        tags,
        operationId: 'listApiKeys',
        summary: "List the project's live server-side and client-side keys: ids and kinds, never secrets",
        params: ProjectParams,
        response: { 200: ApiKeyList, ...errorResponses(403, 404) },
      },
    },
    async (request) => apiKeys.listApiKeys(deps, request.params.projectId),
  );

  app.post(
    '/management/v1/projects/:projectId/api-keys/:keyId/rotate',
    {
      config: { secretAnswer: true },
      schema: {
        tags,
        operationId: 'rotateApiKey',
        summary: 'Replace a key: the old one stops working at once (with its OAuth tokens); the new secret is answered only this once',
        params: KeyParams,
        response: { 200: RotatedApiKey, ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const rotated = await apiKeys.rotateApiKey(deps, managementActorOf(request), request.params.projectId, request.params.keyId);
      authenticator.forgetProject(request.params.projectId);
      return rotated;
    },
  );
}
