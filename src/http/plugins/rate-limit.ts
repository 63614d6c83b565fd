import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { domainError } from '../../domain/errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { FixedWindowLimiter } from '../../lib/rate-limiter.ts';
import type { Authenticator } from '../../services/auth/authenticator.ts';
import { sendError } from './errors.ts';

// Per-project rate limits (DECISIONS 5): off unless a project sets `limits`. Bulk endpoints (route
// `config.bulk`) count against `bulk_api_calls` instead of `api_calls`.

declare module 'fastify' {
  interface FastifyContextConfig {
    bulk?: boolean;
  }
}

export function installRateLimits(app: FastifyInstance, authenticator: Authenticator, clock: Clock): void {
  const limiter = new FixedWindowLimiter();
  app.addHook('preValidation', async (request: FastifyRequest, reply: FastifyReply) => {
    const principal = request.principal;
    if (!principal || principal.kind === 'management') return;
    const policy = await authenticator.projectPolicy(principal.projectId);
    const bulk = request.routeOptions.config.bulk === true;
    const limits = bulk ? policy?.bulkCallLimits : policy?.apiCallLimits;
    if (!limits || limits.length === 0) return;
    const decision = limiter.hit(`${principal.projectId}|${bulk ? 'bulk' : 'api'}`, limits, clock.now().getTime());
    reply.header('X-Rate-Limit-Limit', String(decision.limit));
    reply.header('X-Rate-Limit-Remaining', String(decision.remaining));
    reply.header('X-Rate-Limit-Retry', String(decision.resetAt));
    if (!decision.allowed) {
      const waitSeconds = Math.max(1, decision.resetAt - Math.floor(clock.now().getTime() / 1000));
      reply.header('Retry-After', String(waitSeconds));
      reply.header('X-Rate-Limit-Type', bulk ? 'bulk_api_calls' : 'api_calls');
      return sendError(reply, domainError('too_many_requests', { details: `Rate limit of ${decision.limit} requests reached; retry in ${waitSeconds} s` }));
    }
  });
}
