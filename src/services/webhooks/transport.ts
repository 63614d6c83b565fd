import { promises as dns, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { AddressPolicy } from '../../lib/address-policy.ts';

// The network side of webhook delivery: one POST, the answer's status, headers and the start of its body.
// Targets are checked
// against the installation's address policy where the connection is made, not only when the webhook
// is saved, because a public name can resolve to a private address at any later time.

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}

export interface WebhookResponse {
  status: number;
  /** The answer as the delivery log keeps it; absent when a replacement transport does not say. */
  headers?: Record<string, string>;
  body?: string;
  /** The body was longer than ANSWER_BODY_LIMIT bytes and was cut there. */
  bodyTruncated?: boolean;
}

/** What the delivery log keeps of a receiver's answer body (the rest is read and dropped). */
export const ANSWER_BODY_LIMIT = 4096;

/** Sends one HTTP request; injectable so tests and embedders can replace the network. */
export type WebhookTransport = (request: WebhookRequest) => Promise<WebhookResponse>;

/** Answers a name with all its addresses; injectable so tests can resolve names without DNS. */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

const systemResolver: Resolver = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

/** The target is, or resolves only to, an address the policy refuses; nothing was sent. */
export class TargetNotAllowedError extends Error {
  constructor() {
    super('target address not allowed');
    this.name = 'TargetNotAllowedError';
  }
}

/**
 * An attempt that got no HTTP answer, with the reason the delivery log may show. `reason` names the kind
 * of failure (DNS, refused, timeout, TLS…) only when the address connected to is public: for one inside
 * the installation's own allowed networks, telling a refused port from a silent one or a TLS listener
 * would make the log a port scanner for whoever can set a target, so it reads 'delivery failed'.
 */
export class DeliveryFailedError extends Error {
  readonly reason: string;
  constructor(reason: string, cause: unknown) {
    super(reason, { cause });
    this.name = 'DeliveryFailedError';
    this.reason = reason;
  }
}

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NODATA', 'EAI_NONAME', 'EAI_FAIL']);

/**
 * Why a request got no answer, in the log's words. A failed name lookup is always told (no address was
 * reached, and that a name resolves to a refused address is told anyway); the rest only for a public address.
 */
export function failureReason(error: unknown, addressIsPublic: boolean, timeoutMs: number): string {
  if (error instanceof TargetNotAllowedError) return error.message;
  const failure = error as NodeJS.ErrnoException | undefined;
  const code = typeof failure?.code === 'string' ? failure.code : '';
  if (DNS_CODES.has(code)) return 'DNS: the host name did not resolve';
  if (!addressIsPublic) return 'delivery failed';
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (failure?.name === 'AbortError' || failure?.name === 'TimeoutError' || code === 'ETIMEDOUT' || code === 'ABORT_ERR') return `timed out after ${timeoutMs} ms`;
  if (/^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO|DEPTH_ZERO|SELF_SIGNED)/.test(code) || code === 'EPROTO') return `TLS: ${code}`;
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'connection reset';
  if (code.startsWith('HPE_')) return 'not an HTTP answer';
  return 'delivery failed';
}

const PUBLIC_ONLY = new AddressPolicy([]);

/**
 * A transport that connects only to addresses the policy allows. The check sits in the sockets' `lookup`,
 * so the addresses checked are the only ones the connection can use: a name is resolved once per
 * connection and cannot answer a public address to a check and a private one to the connect (DNS
 * rebinding). Redirects are never followed (node:http does not), so a 3xx is a failed attempt.
 */
export function guardedTransport(policy: AddressPolicy, resolve: Resolver = systemResolver): WebhookTransport {
  const guardedLookup: LookupFunction = (hostname, options, callback) => {
    void resolve(hostname).then(
      (addresses) => {
        const allowed = addresses.filter((a) => policy.allows(a.address));
        if (allowed.length === 0) {
          callback(new TargetNotAllowedError(), '', 0);
          return;
        }
        const usable = options.family === 4 || options.family === 6 ? allowed.filter((a) => a.family === options.family) : allowed;
        const first = usable[0];
        if (!first) callback(Object.assign(new Error(`no IPv${options.family} address for ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
        else if (options.all) callback(null, usable);
        else callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
  // The lookup is passed with each request rather than to the agents (whose options would win over the
  // request's), so each request learns which address its new connection used.
  const agents: Record<string, http.Agent> = {
    'http:': new http.Agent({ keepAlive: true }),
    'https:': new https.Agent({ keepAlive: true }),
  };

  return (request) => {
    const url = new URL(request.url);
    const agent = agents[url.protocol];
    if (!agent) return Promise.reject(new Error(`cannot deliver to a ${url.protocol} URL`));
    // An IP literal is connected to without a lookup, so it is checked here.
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    if (isIP(host) !== 0 && !policy.allows(host)) return Promise.reject(new TargetNotAllowedError());
    const client = url.protocol === 'https:' ? https : http;
    // Whether the connection went to a public address: only then does a failure say what kind it was.
    // A reused keep-alive connection makes no lookup and stays unknown, so reads as not public.
    let addressIsPublic = isIP(host) !== 0 && PUBLIC_ONLY.allows(host);
    const lookup: LookupFunction = (hostname, options, callback) =>
      guardedLookup(hostname, options, ((error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => {
        const used = typeof address === 'string' ? [address] : address.map((a) => a.address);
        addressIsPublic = error === null && used.length > 0 && used.every((a) => PUBLIC_ONLY.allows(a));
        (callback as (...args: unknown[]) => void)(error, address, family);
      }) as Parameters<LookupFunction>[2]);
    return new Promise<WebhookResponse>((resolveResponse, reject) => {
      const req = client.request(
        url,
        {
          method: 'POST',
          headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
          agent,
          lookup,
          // One deadline for connecting, sending and the answer; it also cuts off a body that never ends.
          signal: AbortSignal.timeout(request.timeoutMs),
        },
        (response) => {
          // The start of the body is kept for the log; the rest is read and dropped so the connection can be reused.
          const chunks: Buffer[] = [];
          let kept = 0;
          let truncated = false;
          response.on('data', (chunk: Buffer) => {
            if (kept < ANSWER_BODY_LIMIT) chunks.push(chunk.subarray(0, ANSWER_BODY_LIMIT - kept));
            if (kept + chunk.length > ANSWER_BODY_LIMIT) truncated = true;
            kept = Math.min(ANSWER_BODY_LIMIT, kept + chunk.length);
          });
          const headers: Record<string, string> = {};
          for (const [name, value] of Object.entries(response.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
          // The status decides the attempt: a body cut off (error, timeout) still leaves the answer.
          const done = () => resolveResponse({ status: response.statusCode ?? 0, headers, body: Buffer.concat(chunks).toString('utf8'), bodyTruncated: truncated });
          response.on('end', done);
          response.on('close', done);
          response.on('error', done);
        },
      );
      req.on('error', (error) =>
        reject(error instanceof TargetNotAllowedError ? error : new DeliveryFailedError(failureReason(error, addressIsPublic, request.timeoutMs), error)),
      );
      req.end(request.body);
    });
  };
}
