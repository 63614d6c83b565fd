import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance, RawServerDefault } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Authenticator } from '../services/auth/authenticator.ts';
import type { SessionPermissions } from './plugins/auth.ts';
import type { Deps } from '../services/context.ts';

/** The Fastify instance as route modules see it: TypeBox schemas type each handler's input. */
export type TypedApp = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>;

/** Everything a route module needs: the use-case dependencies, the credential resolver and the roles' rights. */
export interface RouteContext {
  deps: Deps;
  authenticator: Authenticator;
  /** What each console role may call (the console session lists it for the page). */
  sessionPermissions: SessionPermissions;
}
