import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { FREE_FAILURES } from '../../src/domain/auth/sign-in-throttle.ts';
import { startTestApp, type TestApp, type TestResponse } from '../helpers/app.ts';
import { ADMIN, createFirstAdmin, signInRequest } from '../helpers/console.ts';

// Console sign-in under attack: guesses sent all at once get no more checks than the same guesses one at
// a time (each attempt counts before its password is hashed), a stranger who knows an admin's e-mail
// cannot keep the admin out, and behind a reverse proxy the limits apply to each forwarded client, never
// to the proxy's own address — while forwarded addresses are believed only from the trusted proxies.

const statuses = (responses: readonly TestResponse[]) => {
  const counts: Record<number, number> = {};
  for (const r of responses) counts[r.status] = (counts[r.status] ?? 0) + 1;
  return counts;
};

describe('sign-in guesses sent at once', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
    await createFirstAdmin(t);
  });
  after(async () => t.close());

  test('40 parallel guesses at one account from one address: only the free allowance is checked, the rest 429', async () => {
    const guesses = Array.from({ length: 40 }, (_, i) => (i === 39 ? ADMIN.password : `wrong-password-${i}`));
    const answers = await Promise.all(guesses.map((password) => signInRequest(t, ADMIN.email, password)));
    const counts = statuses(answers);
    const checked = (counts[401] ?? 0) + (counts[200] ?? 0);
    assert.ok(checked <= FREE_FAILURES.pair, `${checked} passwords were checked (${JSON.stringify(counts)}); one at a time only ${FREE_FAILURES.pair} would have been`);
    assert.equal(counts[429], 40 - checked, JSON.stringify(counts));
    assert.ok(answers.every((a) => [200, 401, 429].includes(a.status)));
    const refused = answers.find((a) => a.status === 429) as TestResponse;
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    // Sent one at a time after the burst, the right password still waits like any other attempt.
    assert.equal((await signInRequest(t, ADMIN.email, ADMIN.password)).status, 429);
  });

  test('120 parallel sign-ins for made-up e-mails from one address: at most the address allowance is checked', async () => {
    t.clock.advance(31 * 60 * 1000);
    const answers = await Promise.all(Array.from({ length: 120 }, (_, i) => signInRequest(t, `nobody-${i}@shop.example.com`, 'some-password-1')));
    const counts = statuses(answers);
    assert.ok((counts[401] ?? 0) <= FREE_FAILURES.address, JSON.stringify(counts));
    assert.ok((counts[429] ?? 0) >= 120 - FREE_FAILURES.address, JSON.stringify(counts));
    assert.equal((counts[401] ?? 0) + (counts[429] ?? 0), 120, JSON.stringify(counts));
    // Refused early: nothing about the accounts is written beyond the counters.
    const rows = await t.db.db.selectFrom('login_throttle').select(['key', 'failures']).where('key', '=', 'ip:127.0.0.1').execute();
    assert.ok((rows[0]?.failures ?? 0) <= FREE_FAILURES.address, JSON.stringify(rows));
  });

  test('a sign-in from Origin: null (a sandboxed frame, a file: page) is refused', async () => {
    t.clock.advance(31 * 60 * 1000);
    const opaque = await signInRequest(t, ADMIN.email, ADMIN.password, { origin: 'null' });
    assert.equal(opaque.status, 403, opaque.text);
    assert.equal(opaque.body.key, 'forbidden');
    assert.equal((await signInRequest(t, ADMIN.email, ADMIN.password)).status, 200, 'a script without Origin (no browser page) signs in');
  });
});

describe('sign-in behind a trusted reverse proxy', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ config: { proxies: { trusted: ['127.0.0.1'], header: 'x-forwarded-for' } } });
    await createFirstAdmin(t);
  });
  after(async () => t.close());

  const from = (address: string, extra: Record<string, string> = {}) => ({ 'x-forwarded-for': `10.9.9.9, ${address}`, ...extra });

  test('a stranger failing over and over with the admin\'s e-mail is slowed down; the admin elsewhere signs in', async () => {
    for (let i = 0; i < 30; i++) {
      const wrong = await signInRequest(t, ADMIN.email, `guess-${i}`, from('203.0.113.7'));
      assert.ok([401, 429].includes(wrong.status), wrong.text);
    }
    assert.equal((await signInRequest(t, ADMIN.email, ADMIN.password, from('203.0.113.7'))).status, 429, 'the stranger waits');
    const admin = await signInRequest(t, ADMIN.email, ADMIN.password, from('198.51.100.9'));
    assert.equal(admin.status, 200, admin.text);
  });

  test('21 made-up e-mails from one client lock out that client only, not the others behind the same proxy', async () => {
    t.clock.advance(31 * 60 * 1000);
    for (let i = 0; i < 21; i++) await signInRequest(t, `made-up-${i}@example.com`, 'some-password-1', from('203.0.113.8'));
    assert.equal((await signInRequest(t, ADMIN.email, ADMIN.password, from('203.0.113.8'))).status, 429);
    assert.equal((await signInRequest(t, ADMIN.email, ADMIN.password, from('198.51.100.10'))).status, 200);
  });

  test('the Secure cookie follows the scheme the proxy reports', async () => {
    t.clock.advance(31 * 60 * 1000);
    const https = await signInRequest(t, ADMIN.email, ADMIN.password, from('198.51.100.11', { 'x-forwarded-proto': 'https' }));
    assert.equal(https.status, 200);
    for (const line of https.headers.getSetCookie()) assert.match(line, /; Secure/);
    const http = await signInRequest(t, ADMIN.email, ADMIN.password, from('198.51.100.11', { 'x-forwarded-proto': 'http' }));
    for (const line of http.headers.getSetCookie()) assert.doesNotMatch(line, /Secure/);
  });

  test('the log names the forwarded client', async () => {
    const lines: string[] = [];
    const logged = await startTestApp({ config: { proxies: { trusted: ['127.0.0.1'], header: 'forwarded' } }, log: { write: (line: string) => lines.push(line) } });
    try {
      await logged.request('GET', '/health', { headers: { forwarded: 'for=192.0.2.60;proto=https' } });
      assert.ok(lines.some((line) => line.includes('"client":"192.0.2.60"')), lines.join(''));
    } finally {
      await logged.close();
    }
  });
});

describe('sign-in when no proxy is trusted', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
    await createFirstAdmin(t);
  });
  after(async () => t.close());

  test('forwarding headers a client makes up are ignored: changing them does not get around the limits', async () => {
    for (let i = 0; i < 21; i++) {
      await signInRequest(t, `made-up-${i}@example.com`, 'some-password-1', { 'x-forwarded-for': `198.51.100.${i}`, forwarded: `for=192.0.2.${i}` });
    }
    const next = await signInRequest(t, ADMIN.email, ADMIN.password, { 'x-forwarded-for': '198.51.100.200' });
    assert.equal(next.status, 429, 'the connection address is what counts');
    const https = await signInRequest(t, ADMIN.email, ADMIN.password, { 'x-forwarded-proto': 'https' });
    for (const line of https.headers.getSetCookie()) assert.doesNotMatch(line, /Secure/);
  });
});
