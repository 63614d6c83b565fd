import type { RouteContext, TypedApp } from '../../route-context.ts';
import { noContent } from '../../reply.ts';
import * as oauth from '../../../services/auth/oauth.ts';
import { actorOf } from '../../plugins/auth.ts';
import { errorResponses, NoContent } from '../../../api/common.ts';
import { AccessTokenForm, Introspection, TokenRecord, TokenRequest } from '../../../api/oauth.ts';

const tags = ['OAuth'];
const consumes = ['application/x-www-form-urlencoded'];

export function registerOauthRoutes(app: TypedApp, { deps, authenticator }: RouteContext): void {
  app.post(
    '/v1/oauth/token',
    {
      config: { secretAnswer: true },
      schema: {
        tags,
        operationId: 'createOauthToken',
        summary: 'Generate an access token (client_credentials) limited to the given scopes',
        consumes,
        body: TokenRequest,
        response: { 200: TokenRecord, ...errorResponses(429) },
      },
    },
    async (request) => {
      const principal = request.principal;
      const appId = principal?.kind === 'server' ? principal.appId : '';
      return oauth.issueToken(deps, actorOf(request), appId, request.body ?? {});
    },
  );

  app.post(
    '/v1/oauth/token/revoke',
    {
      schema: {
        tags,
        operationId: 'revokeOauthToken',
        summary: 'Revoke an access token; it stops working at once',
        consumes,
        body: AccessTokenForm,
        response: { 204: NoContent, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const hash = await oauth.revokeToken(deps, actorOf(request), request.body?.access_token);
      authenticator.forgetToken(hash);
      return noContent(reply);
    },
  );

  app.post(
    '/v1/oauth/introspect',
    {
      schema: {
        tags,
        operationId: 'introspectOauthToken',
        summary: 'Tell whether an access token is active, and its scopes and expiry',
        consumes,
        body: AccessTokenForm,
        response: { 200: Introspection, ...errorResponses() },
      },
    },
    async (request) => oauth.introspectToken(deps, actorOf(request), request.body?.access_token),
  );
}
