import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import { redactUrl } from '../lib/logging.ts';

// One log line per request, written when its answer has gone, instead of Fastify's pair "incoming
// request" / "request completed" (and its "Route … not found" line): method, URL (credentials redacted:
// src/lib/logging.ts), status, duration and the client's address as the trusted proxies report it
// (src/http/client-address.ts); the request id comes with the request's logger (`reqId`, also sent back
// as X-Request-Id). Fastify's other request-time lines (a broken stream, a failing serializer) stay.

export class AccessLog extends LogController {
  override incomingRequest(): void {}

  override routeNotFound(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const url = redactUrl(request.url);
    const durationMs = Math.round(reply.elapsedTime * 10) / 10;
    const line = { method: request.method, url, status: reply.statusCode, duration_ms: durationMs, client: request.client.address };
    const message = `${request.method} ${url} ${reply.statusCode} ${durationMs} ms`;
    // An error here is the connection's (the client went away mid-answer), not the handler's.
    if (error) request.log.warn({ ...line, err: error }, `${message} (answer cut short)`);
    else request.log.info(line, message);
  }
}
