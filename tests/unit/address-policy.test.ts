import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AddressPolicy, parseNetwork } from '../../src/lib/address-policy.ts';

// Which webhook targets the server may connect to (SSRF guard): hosts as the WHATWG URL parser leaves
// them, so every spelling of an IPv4 address that the parser normalises is covered by its dotted form.

const hostOf = (url: string) => new URL(url).hostname;

const REFUSED_BY_DEFAULT: Array<[string, RegExp]> = [
  ['http://127.0.0.1/', /loopback/],
  ['http://2130706433/', /loopback/],
  ['http://0x7f.1/', /loopback/],
  ['http://0177.0.0.1/', /loopback/],
  ['http://127.1/', /loopback/],
  ['http://127.255.255.254:8080/', /loopback/],
  ['http://[::1]/', /loopback/],
  ['http://[::ffff:127.0.0.1]/', /loopback/],
  ['http://[0:0:0:0:0:ffff:7f00:1]/', /loopback/],
  ['http://localhost/', /this machine/],
  ['http://LOCALHOST./', /this machine/],
  ['http://api.localhost/', /this machine/],
  ['http://0.0.0.0/', /unspecified/],
  ['http://0/', /unspecified/],
  ['http://[::]/', /unspecified/],
  ['http://169.254.169.254/latest/meta-data/', /link-local/],
  ['http://[::ffff:169.254.169.254]/', /link-local/],
  ['http://metadata.google.internal/computeMetadata/v1/', /cloud metadata/],
  ['http://metadata/', /cloud metadata/],
  ['http://10.0.0.1/', /private network/],
  ['http://10.255.1.2/', /private network/],
  ['http://172.16.0.1/', /private network/],
  ['http://172.31.255.255/', /private network/],
  ['http://192.168.1.10/', /private network/],
  ['http://[::ffff:10.1.2.3]/', /private network/],
  ['http://100.64.0.1/', /carrier-grade NAT/],
  ['http://100.127.255.254/', /carrier-grade NAT/],
  ['http://[fc00::1]/', /unique local/],
  ['http://[fd00:ec2::254]/', /unique local/],
  ['http://[fe80::1]/', /link-local/],
  ['http://224.0.0.1/', /multicast/],
  ['http://[ff02::1]/', /multicast/],
  ['http://255.255.255.255/', /broadcast/],
  ['http://240.0.0.1/', /reserved/],
  ['http://192.0.2.1/', /reserved/],
  ['http://[2001:db8::1]/', /reserved/],
];

const PUBLIC: string[] = [
  'https://hooks.example.com/in',
  'http://8.8.8.8/',
  'http://93.184.216.34:8443/x',
  'http://172.32.0.1/',
  'http://100.128.0.1/',
  'http://[2606:4700:4700::1111]/',
  'http://[::ffff:8.8.8.8]/',
  'http://metadata.example.com/',
  'http://localhost.example.com/',
];

describe('webhook target address policy', () => {
  const defaults = new AddressPolicy([]);

  for (const [url, reason] of REFUSED_BY_DEFAULT) {
    test(`refuses ${url} by default`, () => {
      assert.match(defaults.refusalOfHost(hostOf(url)) ?? 'accepted', reason);
    });
  }

  test('accepts public addresses and names that are not obviously internal', () => {
    for (const url of PUBLIC) assert.equal(defaults.refusalOfHost(hostOf(url)), null, url);
  });

  test('judges resolved addresses the same way, IPv4-mapped IPv6 as the IPv4 address it carries', () => {
    for (const ip of ['127.0.0.1', '::1', '10.0.0.1', '169.254.169.254', '::ffff:192.168.0.1', 'fd12::1', '100.64.0.1', '0.0.0.0']) {
      assert.equal(defaults.allows(ip), false, ip);
    }
    for (const ip of ['8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8']) assert.equal(defaults.allows(ip), true, ip);
    assert.equal(defaults.allows('not-an-ip'), false);
  });

  test('an allowed network opens exactly its addresses, in every spelling and to names that stand for them', () => {
    const policy = new AddressPolicy(['127.0.0.0/8', '10.0.0.0/8', 'fd00::/8']);
    for (const url of ['http://127.1/', 'http://2130706433/', 'http://[::ffff:127.0.0.1]/', 'http://localhost/', 'http://10.9.8.7/', 'http://[fd12::1]/']) {
      assert.equal(policy.refusalOfHost(hostOf(url)), null, url);
    }
    for (const url of ['http://192.168.0.1/', 'http://[::1]/', 'http://[fc00::1]/', 'http://169.254.169.254/', 'http://metadata.google.internal/']) {
      assert.notEqual(policy.refusalOfHost(hostOf(url)), null, url);
    }
    assert.equal(policy.allows('127.0.0.1'), true);
    assert.equal(policy.allows('::ffff:10.0.0.1'), true);
    assert.equal(policy.allows('192.168.0.1'), false);
  });

  test('networks are address/prefix, IPv4 in plain dotted decimal', () => {
    for (const good of ['10.0.0.0/8', '127.0.0.1/32', '0.0.0.0/0', 'fd00::/8', '::1/128']) assert.ok(parseNetwork(good), good);
    for (const bad of ['10.0.0.0', '10.0.0.0/33', '010.0.0.0/8', '0x0a.0.0.0/8', '10.0.0.0/x', '10.0.0.0/-1', 'fd00::/129', 'example.com/8', '', '/8']) {
      assert.equal(parseNetwork(bad), null, bad);
    }
  });
});
