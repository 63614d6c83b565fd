import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

// Which addresses the server may open outbound connections to on a user's behalf (webhook targets).
// Only public unicast addresses by default: anything that reaches the machine itself, the local network,
// a cloud metadata service or a special-purpose range is refused, unless the installation allows one of
// its own networks (PUNCHCARD_WEBHOOK_ALLOW_NETWORKS). Classification comes from ipaddr.js's range table.

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Network = [Address, number];

/** What a refused range is, in words an API caller understands. */
const RANGE_WORDS: Record<string, string> = {
  loopback: 'a loopback address',
  private: 'a private network address',
  uniqueLocal: 'a private network address (IPv6 unique local)',
  linkLocal: 'a link-local address',
  carrierGradeNat: 'a carrier-grade NAT address',
  unspecified: 'an unspecified address',
  multicast: 'a multicast address',
  broadcast: 'a broadcast address',
};

/**
 * Names that always mean this machine or a cloud metadata service, mapped to the addresses they stand for
 * (RFC 6761 for `localhost`); refused at write time without a DNS query. Other names are only known after
 * resolution, which the delivery checks.
 */
const INTERNAL_NAMES: ReadonlyArray<[RegExp, readonly string[], string]> = [
  [/^(?:.+\.)?localhost$/, ['127.0.0.1', '::1'], 'a name of this machine'],
  [/^(?:metadata|metadata\.google\.internal|metadata\.goog)$/, ['169.254.169.254'], 'a cloud metadata service'],
  [/^(?:instance-data|instance-data\.ec2\.internal)$/, ['169.254.169.254'], 'a cloud metadata service'],
];

/** Parses a network like `10.0.0.0/8` or `fd00::/8`; IPv4 in plain four-part decimal only (no octal surprises). */
export function parseNetwork(text: string): Network | null {
  const slash = text.indexOf('/');
  if (slash < 0) return null;
  const address = text.slice(0, slash);
  const family = isIP(address);
  if (family === 0 || !/^\d{1,3}$/.test(text.slice(slash + 1))) return null;
  if (family === 4 && !ipaddr.IPv4.isValidFourPartDecimal(address)) return null;
  try {
    return ipaddr.parseCIDR(text);
  } catch {
    return null;
  }
}

/** An IPv4-mapped IPv6 address (`::ffff:10.0.0.1`) is judged as the IPv4 address it carries. */
function parseAddress(text: string): Address | null {
  return isIP(text) === 0 ? null : ipaddr.process(text);
}

export class AddressPolicy {
  readonly #allowed: Network[];

  /** `allowNetworks`: CIDRs whose addresses are accepted even though they are not public. */
  constructor(allowNetworks: readonly string[]) {
    this.#allowed = allowNetworks.map((text) => {
      const network = parseNetwork(text);
      if (!network) throw new Error(`not a network: ${text}`);
      return network;
    });
  }

  /** Why an IP address (v4 or v6 text) may not be connected to, or null when it may. */
  refusalOf(ip: string): string | null {
    const address = parseAddress(ip);
    if (!address) return 'not an IP address';
    if (this.#allowed.some(([network, bits]) => network.kind() === address.kind() && address.match(network, bits))) return null;
    const range = address.range();
    if (range === 'unicast') return null;
    return RANGE_WORDS[range] ?? 'a reserved or special-purpose address';
  }

  allows(ip: string): boolean {
    return this.refusalOf(ip) === null;
  }

  /**
   * Why a URL's host is refused before any DNS query, or null when it can only be judged after resolution.
   * `hostname` is as the WHATWG URL parser leaves it: IPv4 in any spelling is already dotted decimal,
   * IPv6 is in brackets.
   */
  refusalOfHost(hostname: string): string | null {
    const host = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname.toLowerCase().replace(/\.+$/, '');
    if (isIP(host) !== 0) return this.refusalOf(host);
    const internal = INTERNAL_NAMES.find(([pattern]) => pattern.test(host));
    if (!internal) return null;
    const [, addresses, words] = internal;
    return addresses.some((ip) => this.allows(ip)) ? null : words;
  }
}
