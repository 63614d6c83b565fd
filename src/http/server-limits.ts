import { STATUS_CODES, type ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { ServerLimits } from '../config.ts';
import { domainError, type DomainError } from '../domain/errors.ts';
import type { ProxyTrust } from '../lib/forwarding.ts';
import { newRequestId } from '../lib/ids.ts';
import { connectionsRefused } from '../lib/metrics.ts';
import { errorBody, sendError } from './plugins/errors.ts';

// How long a client may take to send a request and how many connections may be open (README
// "Configuration"). Node's `requestTimeout` bounds receiving a whole request, headers and body, and
// nothing after it: once the body is in, a handler may work and a download may stream for as long as
// they need, which is why no socket inactivity timeout (Fastify's `connectionTimeout`) is set.
// Before these bounds a body sent one byte at a time held its connection for ever, and Node's default
// 60 s header timeout was checked only every 30 s.

/** How often Node looks for connections past their deadline: a tenth of the timeout, 0.1 to 1 s. */
function checkingInterval(limits: ServerLimits): number {
  return Math.min(1000, Math.max(100, Math.floor(limits.requestTimeoutMs / 10)));
}

/** Fastify options for the HTTP server: receive deadlines, keep-alive, and the vendor body for protocol errors. */
export function serverLimitOptions(limits: ServerLimits): {
  requestTimeout: number;
  keepAliveTimeout: number;
  http: ServerOptions;
  clientErrorHandler: (error: Error & { code?: string }, socket: Socket) => void;
} {
  return {
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // Headers get no longer than the whole request (Node's own default would allow 60 s whatever the bound).
    http: { headersTimeout: limits.requestTimeoutMs, connectionsCheckingInterval: checkingInterval(limits) },
    clientErrorHandler: answerClientError,
  };
}

/** Open connections per client address, against the share each may hold. */
class AddressShares {
  readonly #held = new Map<string, number>();
  constructor(readonly share: number) {}

  take(address: string): boolean {
    const held = this.#held.get(address) ?? 0;
    if (held >= this.share) return false;
    this.#held.set(address, held + 1);
    return true;
  }

  release(address: string): void {
    const held = (this.#held.get(address) ?? 0) - 1;
    if (held > 0) this.#held.set(address, held);
    else this.#held.delete(address);
  }
}

/**
 * Applies what Fastify has no option for: how many connections are served at once, the share of them one
 * client address may hold, and how long a new connection may stay silent.
 *
 * A connection beyond its address's share is closed as it arrives, so one client holding idle sockets
 * cannot take the connections every other client needs. A trusted proxy's connections carry many
 * clients: each is counted, request by request, against the share of the address the proxy forwards, and
 * one beyond it is answered 429 and closed. A connection that sends no complete request headers within
 * `firstRequestTimeoutMs` is closed (later requests on it have the request timeout and keep-alive bounds).
 */
export function limitConnections(app: FastifyInstance, limits: ServerLimits, trust: ProxyTrust): void {
  const server = app.server;
  server.maxConnections = limits.maxConnections;
  const shares = new AddressShares(limits.maxConnectionsPerAddress);
  const proxiedFor = new WeakMap<Socket, string>();
  const silent = new WeakSet<Socket>();

  server.on('connection', (socket: Socket) => {
    socket.setTimeout(limits.firstRequestTimeoutMs);
    silent.add(socket);
    const peer = socket.remoteAddress ?? 'unknown';
    if (trust.trusts(peer)) return;
    if (!shares.take(peer)) {
      connectionsRefused.inc({ reason: 'address_share' });
      socket.destroy();
      return;
    }
    socket.once('close', () => shares.release(peer));
  });

  app.addHook('onRequest', async (request, reply) => {
    const socket = request.raw.socket;
    if (silent.delete(socket)) socket.setTimeout(0);
    if (!trust.trusts(socket.remoteAddress)) return;
    const address = request.client.address;
    const before = proxiedFor.get(socket);
    if (before === address) return;
    if (before === undefined) socket.once('close', () => {
      const last = proxiedFor.get(socket);
      if (last !== undefined) shares.release(last);
    });
    else shares.release(before);
    proxiedFor.delete(socket);
    if (!shares.take(address)) {
      connectionsRefused.inc({ reason: 'address_share' });
      reply.header('connection', 'close');
      return sendError(reply, domainError('too_many_requests', { details: 'Too many connections from your address; close idle ones and retry' }));
    }
    proxiedFor.set(socket, address);
  });
}

/** Node's client error codes that have an answer of their own; any other is a 400. */
const CLIENT_ERRORS: Record<string, () => DomainError> = {
  ERR_HTTP_REQUEST_TIMEOUT: () =>
    domainError('request_timeout', { details: 'The request was not received in time: headers and body must arrive without long pauses' }),
  HPE_HEADER_OVERFLOW: () => domainError('header_fields_too_large', { details: 'The request line and headers exceed 16 KB' }),
};

/**
 * Errors Node meets before a request exists (a request past its deadline, headers too large, bytes that
 * are not HTTP): the connection is answered once, in the vendor's error body, and closed.
 */
function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const known = error.code !== undefined ? CLIENT_ERRORS[error.code] : undefined;
  const answer = known ? known() : domainError('invalid_payload', { message: 'Bad request', details: 'The request could not be read as HTTP' });
  const body = JSON.stringify(errorBody(answer, newRequestId()));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? ''}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
