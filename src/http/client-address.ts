import type { TLSSocket } from 'node:tls';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ClientAddress, ProxyTrust } from '../lib/forwarding.ts';

// `request.client`: who sent the request, believing forwarding headers only from the trusted proxies
// (src/lib/forwarding.ts). Every per-address limit, the logs and the Secure cookie decision read it;
// `request.ip` (the connection's peer, a proxy's address behind one) is not used for any of them.

declare module 'fastify' {
  interface FastifyRequest {
    readonly client: ClientAddress;
  }
}

export function installClientAddress(app: FastifyInstance, trust: ProxyTrust): void {
  const known = new WeakMap<FastifyRequest, ClientAddress>();
  app.decorateRequest('client', {
    getter(this: FastifyRequest): ClientAddress {
      let client = known.get(this);
      if (client === undefined) {
        const socket = this.raw.socket as TLSSocket | undefined;
        client = trust.clientOf(socket?.remoteAddress, this.headers, socket?.encrypted === true);
        known.set(this, client);
      }
      return client;
    },
  });
}
