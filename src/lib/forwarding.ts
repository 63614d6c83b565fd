import type { IncomingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';
import parseForwarded from 'forwarded-parse';
import ipaddr from 'ipaddr.js';
import { parseNetwork } from './address-policy.ts';

// Who a request comes from when reverse proxies stand in front of the server. A proxy connects on the
// client's behalf and appends the address it received the request from to a header; only the part
// appended by proxies the installation trusts can be believed, since a client can send any header it
// likes. So the chain is read from the right: starting at the connection's peer, each trusted hop hands
// over to the address it reports, and the first address that is not a trusted proxy is the client.
// Every per-address limit (console sign-in, the cockpit, connections) and the Secure cookie decision use
// this address (README "Behind a reverse proxy").

/** Which header the trusted proxies write: the common `X-Forwarded-For` (with `X-Forwarded-Proto`) or RFC 7239 `Forwarded`. */
export type ForwardedHeader = 'x-forwarded-for' | 'forwarded';

export interface ClientAddress {
  /** The client's address as far as it can be believed; the connection's peer when no proxy is trusted. */
  address: string;
  /** Whether the client reached the first trusted hop (or this server) over HTTPS. */
  https: boolean;
}

type Network = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** A hop's address without port, brackets or IPv4-mapping (`[::ffff:10.0.0.1]:443` → `10.0.0.1`); null when it is not an IP. */
function addressOf(hop: string): string | null {
  let text = hop.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(text);
  if (bracketed) text = bracketed[1] as string;
  else if (/^[\d.]+:\d+$/.test(text)) text = text.slice(0, text.lastIndexOf(':'));
  if (isIP(text) === 0) return null;
  return ipaddr.process(text).toString();
}

/** Longest stored form of an address that is not an IP (a proxy may write `unknown` or an obfuscated name). */
const MAX_OPAQUE_LENGTH = 100;

export class ProxyTrust {
  readonly #networks: Network[];
  readonly #header: ForwardedHeader;

  /** `trusted`: addresses or networks (`10.0.0.5`, `10.0.0.0/8`, `fd00::/8`) whose forwarding headers are believed. */
  constructor(trusted: readonly string[], header: ForwardedHeader) {
    this.#networks = trusted.map((entry) => {
      const network = parseTrustedEntry(entry);
      if (!network) throw new Error(`not an address or network: ${entry}`);
      return network;
    });
    this.#header = header;
  }

  get enabled(): boolean {
    return this.#networks.length > 0;
  }

  /** Whether `address` (an IP, as a socket reports it) is a trusted proxy. */
  trusts(address: string | undefined): boolean {
    if (this.#networks.length === 0 || address === undefined || isIP(address) === 0) return false;
    const parsed = ipaddr.process(address);
    return this.#networks.some(([network, bits]) => network.kind() === parsed.kind() && parsed.match(network, bits));
  }

  /** The client behind a connection from `peer` with these request headers; `encrypted` is the connection's own TLS. */
  clientOf(peer: string | undefined, headers: IncomingHttpHeaders, encrypted: boolean): ClientAddress {
    const direct = peer === undefined ? 'unknown' : (addressOf(peer) ?? peer);
    if (!this.trusts(direct)) return { address: direct, https: encrypted };
    const hops = this.#header === 'forwarded' ? forwardedHops(headers.forwarded) : forwardedForHops(headers['x-forwarded-for'], headers['x-forwarded-proto']);
    let address = direct;
    // The scheme is the one the outermost trusted proxy saw: each trusted hop reports its own.
    let https = encrypted;
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hops[i] as { for: string | undefined; proto: string | undefined };
      if (hop.proto !== undefined) https = hop.proto.toLowerCase() === 'https';
      if (hop.for === undefined) break;
      const next = addressOf(hop.for);
      if (next === null) {
        // Not an address (`unknown`, an obfuscated name): the hop that wrote it is the furthest one known.
        address = hop.for.trim().slice(0, MAX_OPAQUE_LENGTH) || address;
        break;
      }
      address = next;
      if (!this.trusts(next)) break;
    }
    return { address, https };
  }
}

/** An address is a network of one. */
function parseTrustedEntry(entry: string): Network | null {
  if (entry.includes('/')) return parseNetwork(entry);
  if (isIP(entry) === 0) return null;
  if (isIP(entry) === 4 && !ipaddr.IPv4.isValidFourPartDecimal(entry)) return null;
  const address = ipaddr.process(entry);
  return [address, address.kind() === 'ipv4' ? 32 : 128];
}

/** Whether a setting entry is an address or a network ProxyTrust accepts (for the configuration's check). */
export function isTrustedProxyEntry(entry: string): boolean {
  return parseTrustedEntry(entry) !== null;
}

function headerText(value: string | string[] | undefined): string {
  return Array.isArray(value) ? value.join(',') : (value ?? '');
}

/**
 * `X-Forwarded-For: client, proxy1` with `X-Forwarded-Proto`: the last scheme listed belongs to the last
 * hop (a proxy that sets the header instead of appending to it leaves one value, which is its own).
 */
function forwardedForHops(forwardedFor: string | string[] | undefined, proto: string | string[] | undefined): Array<{ for: string | undefined; proto: string | undefined }> {
  const addresses = headerText(forwardedFor).split(',').map((part) => part.trim()).filter((part) => part !== '');
  const protos = headerText(proto).split(',').map((part) => part.trim()).filter((part) => part !== '');
  const hops = addresses.map((address) => ({ for: address as string | undefined, proto: undefined as string | undefined }));
  const last = hops[hops.length - 1];
  if (last && protos.length > 0) last.proto = protos[protos.length - 1];
  if (!last && protos.length > 0) hops.push({ for: undefined, proto: protos[protos.length - 1] });
  return hops;
}

/**
 * RFC 7239 `Forwarded`, element by element: a client can put anything before the elements the proxies
 * append, so an element that does not parse ends the chain there instead of voiding the whole header.
 */
function forwardedHops(value: string | string[] | undefined): Array<{ for: string | undefined; proto: string | undefined }> {
  const hops: Array<{ for: string | undefined; proto: string | undefined }> = [];
  for (const element of headerText(value).split(',')) {
    if (element.trim() === '') continue;
    let parsed: Record<string, string> | undefined;
    try {
      parsed = parseForwarded(element)[0];
    } catch {
      parsed = undefined;
    }
    hops.push({ for: parsed ? parsed.for : 'unknown', proto: parsed?.proto });
  }
  return hops;
}
