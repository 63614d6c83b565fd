import { promises as dns, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { AddressPolicy } from '../../lib/address-policy.ts';

// The network side of webhook delivery: one POST, the answer's status, nothing else. Targets are checked
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
}

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
 * A transport that connects only to addresses the policy allows. The check sits in the sockets' `lookup`,
 * so the addresses checked are the only ones the connection can use: a name is resolved once per
 * connection and cannot answer a public address to a check and a private one to the connect (DNS
 * rebinding). Redirects are never followed (node:http does not), so a 3xx is a failed attempt.
 */
export function guardedTransport(policy: AddressPolicy, resolve: Resolver = systemResolver): WebhookTransport {
  const lookup: LookupFunction = (hostname, options, callback) => {
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
  const agents: Record<string, http.Agent> = {
    'http:': new http.Agent({ keepAlive: true, lookup }),
    'https:': new https.Agent({ keepAlive: true, lookup }),
  };

  return (request) => {
    const url = new URL(request.url);
    const agent = agents[url.protocol];
    if (!agent) return Promise.reject(new Error(`cannot deliver to a ${url.protocol} URL`));
    // An IP literal is connected to without a lookup, so it is checked here.
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    if (isIP(host) !== 0 && !policy.allows(host)) return Promise.reject(new TargetNotAllowedError());
    const client = url.protocol === 'https:' ? https : http;
    return new Promise<WebhookResponse>((resolveResponse, reject) => {
      const req = client.request(
        url,
        {
          method: 'POST',
          headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
          agent,
          // One deadline for connecting, sending and the answer's head; it also cuts off a body that never ends.
          signal: AbortSignal.timeout(request.timeoutMs),
        },
        (response) => {
          // Only the status matters; the body is read and dropped so the connection can be reused.
          response.on('error', () => undefined);
          response.resume();
          resolveResponse({ status: response.statusCode ?? 0 });
        },
      );
      req.on('error', reject);
      req.end(request.body);
    });
  };
}
