import type { FastifyInstance } from 'fastify';

// Browsers call the client-side API from shop pages. Preflights are answered for any origin (they carry
// no credentials); the real request is then checked against the project's trusted origins, and only a
// request that passed that check gets an Access-Control-Allow-Origin answer.

const ALLOWED_HEADERS = [
  'Content-Type',
  'X-Client-Application-Id',
  'X-Client-Token',
  'X-Voucherify-Channel',
  'X-Voucherify-API-Version',
  'Authorization',
  'Idempotency-Key',
].join(', ');

export function installClientCors(app: FastifyInstance): void {
  app.options('/client/v1/*', { schema: { hide: true }, config: { auth: 'public' } }, async (request, reply) => {
    const origin = request.headers.origin;
    if (origin) {
      reply.header('Access-Control-Allow-Origin', origin);
      reply.header('Vary', 'Origin');
    }
    reply.header('Access-Control-Allow-Methods', 'GET, POST, PUT, DELETE');
    reply.header('Access-Control-Allow-Headers', ALLOWED_HEADERS);
    reply.header('Access-Control-Max-Age', '600');
    return reply.code(204).send();
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const principal = request.principal;
    if (principal?.kind === 'client') {
      reply.header('Access-Control-Allow-Origin', principal.origin);
      reply.header('Vary', 'Origin');
      reply.header('Access-Control-Expose-Headers', 'X-Request-Id, X-Rate-Limit-Limit, X-Rate-Limit-Remaining, X-Rate-Limit-Retry');
    }
    return payload;
  });
}
