import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { cockpitShop, ok, tokenOf, type CockpitShop } from '../helpers/cockpit.ts';
import { ADMIN, addUser, createFirstAdmin, signIn } from '../helpers/console.ts';
import { RECEIVER_NETWORKS, WebhookReceiver } from '../helpers/webhook-receiver.ts';

// The customer cockpit through the wire: the links in every customer object, what the cockpit API shows
// the link's customer (and nobody else), reward redemption exactly once, the preference center's
// consent changes (activity and webhook), and every way a link stops working.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe('customer cockpit', () => {
  let t: TestApp;
  let shop: CockpitShop;
  let token: string;
  const receiver = new WebhookReceiver();

  const cockpit = (method: string, path: string, options: { token?: string; json?: unknown; headers?: Record<string, string> } = {}) =>
    t.request(method, `/cockpit/v1${path}`, {
      headers: { ...(options.token === undefined ? {} : { 'x-cockpit-token': options.token }), ...(options.headers ?? {}) },
      ...(options.json === undefined ? {} : { json: options.json }),
    });

  before(async () => {
    t = await startTestApp({ config: { webhookAllowNetworks: RECEIVER_NETWORKS } });
    await receiver.start();
    shop = await cockpitShop(t);
    token = tokenOf(shop.customer.assets.cockpit_url);
  });
  after(async () => {
    await receiver.stop();
    await t.close();
  });

  test('every customer object carries absolute cockpit links on PUBLIC_URL, stable across reads, one per customer', async () => {
    const PUBLIC_URL = t.deps.config.publicUrl;
    const { assets } = shop.customer;
    assert.match(assets.cockpit_url, new RegExp(`^${PUBLIC_URL}/cockpit#token=[A-Za-z0-9_-]+\\.[0-9a-z]+\\.[A-Za-z0-9_-]{43}$`));
    assert.equal(assets.cockpit_preference_center_url, `${PUBLIC_URL}/cockpit/preferences#token=${token}`);
    const again = await ok(t, 'GET', `/v1/customers/${shop.customer.source_id}`);
    assert.deepEqual(again.assets, assets, 'the same link on every read');
    const listed = await ok(t, 'GET', '/v1/customers?limit=100');
    assert.deepEqual(listed.customers.find((c: Json) => c.id === shop.customer.id).assets, assets);
    assert.ok(listed.customers.every((c: Json) => typeof c.assets?.cockpit_url === 'string'));
    const updated = await ok(t, 'PUT', `/v1/customers/${shop.customer.id}`, { phone: '+44 20 0000 0000' });
    assert.deepEqual(updated.assets, assets);
    const other = await ok(t, 'POST', '/v1/customers', { source_id: 'someone-else' });
    assert.notEqual(tokenOf(other.assets.cockpit_url), token);

    // Nothing that opens a cockpit is kept: no table holds the token, and events record no links.
    const activity = await ok(t, 'GET', `/v1/customers/${shop.customer.id}/activity?limit=100`);
    assert.ok(!JSON.stringify(activity).includes(token), 'activities carry no cockpit link');
    const rows = await t.deps.db.selectFrom('events').select('data').where('project_id', '=', t.projectId).execute();
    assert.ok(!rows.some((r) => String(r.data).includes(token)), 'no event stores the link');
  });

  test('only a caller that may itself redeem rewards and record consents gets the links: null for a VIEWER or a narrow OAuth token', async () => {
    await createFirstAdmin(t);
    const path = `/v1/customers/${shop.customer.id}`;
    const admin = await signIn(t, ADMIN.email, ADMIN.password);
    assert.deepEqual((await admin.request('GET', path)).body.assets, shop.customer.assets);
    const user = await addUser(t, 'marketer@shop.example.com', 'USER');
    assert.deepEqual((await user.request('GET', path)).body.assets, shop.customer.assets);
    const hidden = { cockpit_url: null, cockpit_preference_center_url: null };
    const viewer = await addUser(t, 'viewer@shop.example.com', 'VIEWER');
    assert.deepEqual((await viewer.request('GET', path)).body.assets, hidden);
    assert.ok((await viewer.request('GET', '/v1/customers?limit=100')).body.customers.every((c: Json) => c.assets.cockpit_url === null));
    const merchant = await addUser(t, 'till@shop.example.com', 'MERCHANT');
    assert.deepEqual((await merchant.request('GET', path)).body.assets, hidden, 'a MERCHANT records no consents');
    const token = async (scope: string) =>
      (await t.request('POST', '/v1/oauth/token', { headers: t.serverHeaders(), form: { grant_type: 'client_credentials', scope } })).body.access_token as string;
    const narrow = await token('customers');
    assert.deepEqual((await t.request('GET', path, { headers: { authorization: `Bearer ${narrow}` } })).body.assets, hidden);
    const wide = await token('customers loyalties');
    assert.deepEqual((await t.request('GET', path, { headers: { authorization: `Bearer ${wide}` } })).body.assets, shop.customer.assets);
  });

  test('the wallet shows the link\'s customer their cards, tier, rewards, history, vouchers, gift cards and referral code', async () => {
    const res = await cockpit('GET', '/wallet', { token });
    assert.equal(res.status, 200, res.text);
    const wallet = res.body;
    assert.equal(wallet.customer.name, 'Ada Lovelace');
    assert.equal(wallet.brand.name, 'Default project', 'without a branding: the project name');
    assert.equal(res.headers.get('cache-control'), 'no-store', "a customer's own data is never cached");

    assert.equal(wallet.loyalty_cards.length, 1);
    const [card] = wallet.loyalty_cards;
    assert.equal(card.code, shop.card);
    assert.equal(card.balance, 350);
    assert.equal(card.pending_points, 0);
    assert.deepEqual(card.tier && { name: card.tier.name }, { name: 'Silver' });
    assert.equal(card.tier_points, 350, 'the tiers count the balance (the default policy)');
    assert.deepEqual(card.next_tier, { name: 'Gold', from: 500, points_needed: 150 });
    const byName = new Map<string, Json>(card.rewards.map((r: Json) => [r.name, r]));
    assert.deepEqual(
      [byName.get('Free flat white')?.affordable, byName.get('Free flat white')?.points, byName.get('Bag of beans')?.affordable],
      [true, 200, false],
    );
    assert.equal(byName.get('Free flat white')?.stock_left, 50);
    assert.equal(byName.get('Bag of beans')?.stock_left, null, 'no stock: unlimited');
    assert.ok(card.history.data.some((x: Json) => x.reason === 'Welcome bonus' && x.points === 350), JSON.stringify(card.history));
    assert.match(card.qr_url, new RegExp(`^${t.deps.config.publicUrl}/v1/assets/qr/`));

    const [coupon] = wallet.vouchers;
    assert.equal(coupon.code, shop.coupon);
    assert.deepEqual([coupon.discount.type, coupon.discount.percent_off], ['PERCENT', 10]);
    assert.equal(coupon.expiration_date, '2030-12-31T23:59:59.000Z');
    assert.match(coupon.barcode_url, new RegExp(`^${t.deps.config.publicUrl}/v1/assets/barcode/`));
    assert.deepEqual(wallet.gift_cards.map((g: Json) => [g.code, g.balance, g.amount]), [[shop.giftCard, 2500, 2500]]);
    assert.deepEqual(wallet.referrals.codes.map((r: Json) => r.code), [shop.referralCode]);
    assert.equal(wallet.referrals.friends_joined, 0);
  });

  test('branding: name, colours, logo and contact reach the cockpit; links other than http(s) never do', async () => {
    const created = await ok(t, 'POST', `/management/v1/projects/${t.projectId}/branding`, {
      brand: { name: 'Bean There', website_url: 'beanthere.example.com', permission_reminder: 'You chose these at checkout.' },
      contact: { email: 'help@beanthere.example.com' },
      cockpit: { logo_url: 'https://cdn.example.com/bean.png', primary_color: '#5b3a29' },
    }, t.managementHeaders());
    try {
      const { brand } = (await cockpit('GET', '/wallet', { token })).body;
      assert.equal(brand.name, 'Bean There');
      assert.equal(brand.primary_color, '#5b3a29');
      assert.equal(brand.accent_color, '#f08c00', 'a colour not set keeps its default');
      assert.equal(brand.logo_url, 'https://cdn.example.com/bean.png');
      assert.equal(brand.website_url, 'https://beanthere.example.com/');
      assert.deepEqual(brand.contact, { email: 'help@beanthere.example.com', phone: null });
      const share = (await cockpit('GET', '/wallet', { token })).body.referrals.codes[0].share_url;
      assert.equal(share, `https://beanthere.example.com/?referral_code=${encodeURIComponent(shop.referralCode)}`);
    } finally {
      await ok(t, 'DELETE', `/management/v1/projects/${t.projectId}/branding/${created.id}`, undefined, t.managementHeaders());
    }
  });

  test('a reward is redeemed once per intent: the same Idempotency-Key twice at once is one redemption, points taken once', async () => {
    const key = `cockpit-test-${Date.now()}`;
    const redeem = () => cockpit('POST', `/cards/${encodeURIComponent(shop.card)}/redemption`, { token, json: { reward_id: shop.rewardId }, headers: { 'idempotency-key': key } });
    const answers = await Promise.all([redeem(), redeem()]);
    const statuses = answers.map((a) => a.status).sort();
    assert.ok(statuses.includes(200), answers.map((a) => a.text).join('\n'));
    for (const answer of answers) assert.ok(answer.status === 200 || answer.body.key === 'idempotency_request_in_progress', answer.text);
    const replay = await redeem();
    assert.equal(replay.status, 200);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.match(replay.body.id, /^r_/);

    const member = await ok(t, 'GET', `/v1/loyalties/members/${encodeURIComponent(shop.card)}`);
    assert.equal(member.loyalty_card.balance, 350 - shop.price, 'points taken once');
    const records = await ok(t, 'GET', `/v1/redemptions?customer=${shop.customer.id}&limit=100`);
    const rewardRecords = records.redemptions.filter((r: Json) => r.reward);
    assert.equal(rewardRecords.length, 1, 'one redemption record');
    assert.equal(rewardRecords[0].id, replay.body.id);

    // A new intent (a new key) is a new redemption; the balance no longer pays for it.
    const broke = await cockpit('POST', `/cards/${encodeURIComponent(shop.card)}/redemption`, { token, json: { reward_id: shop.rewardId }, headers: { 'idempotency-key': `${key}-2` } });
    assert.notEqual(broke.status, 200);
    assert.ok(broke.status < 500, broke.text);
    assert.equal((await ok(t, 'GET', `/v1/loyalties/members/${encodeURIComponent(shop.card)}`)).loyalty_card.balance, 350 - shop.price);
  });

  test('a pay-with-points reward is shown for use at checkout, and the cockpit does not redeem it', async () => {
    const coin = await ok(t, 'POST', '/v1/rewards', { name: 'Points off your order', type: 'COIN', parameters: { coin: { exchange_ratio: 0.01, points_ratio: 1 } } });
    await ok(t, 'POST', `/v1/rewards/${coin.id}/assignments`, { campaign: shop.programId });
    const wallet = await cockpit('GET', '/wallet', { token });
    assert.equal(wallet.status, 200, wallet.text);
    const rewards = wallet.body.loyalty_cards.flatMap((c: Json) => c.rewards);
    assert.equal(rewards.find((r: Json) => r.id === coin.id)?.redeemable, false);
    assert.equal(rewards.find((r: Json) => r.id === shop.rewardId)?.redeemable, true);
    const before = (await ok(t, 'GET', `/v1/loyalties/members/${encodeURIComponent(shop.card)}`)).loyalty_card.balance;
    const refused = await cockpit('POST', `/cards/${encodeURIComponent(shop.card)}/redemption`, { token, json: { reward_id: coin.id } });
    assert.equal(refused.status, 400, refused.text);
    assert.match(refused.body.details, /used at checkout/);
    assert.equal((await ok(t, 'GET', `/v1/loyalties/members/${encodeURIComponent(shop.card)}`)).loyalty_card.balance, before);
  });

  test("another customer's card, an unknown card and another project's objects are all the same 404", async () => {
    const other = await cockpitShop(t, 900);
    const theirs = await cockpit('POST', `/cards/${encodeURIComponent(other.card)}/redemption`, { token, json: { reward_id: other.rewardId } });
    const unknown = await cockpit('POST', '/cards/NO-SUCH-CARD/redemption', { token, json: { reward_id: other.rewardId } });
    assert.equal(theirs.status, 404);
    assert.equal(unknown.status, 404);
    assert.equal(theirs.body.details.replace(other.card, 'X'), unknown.body.details.replace('NO-SUCH-CARD', 'X'));
    assert.equal((await ok(t, 'GET', `/v1/loyalties/members/${encodeURIComponent(other.card)}`)).loyalty_card.balance, 900, 'nothing was taken');
    const history = await cockpit('GET', `/cards/${encodeURIComponent(other.card)}/transactions`, { token });
    assert.equal(history.status, 404);
    const wallet = await cockpit('GET', '/wallet', { token });
    assert.ok(!wallet.text.includes(other.card) && !wallet.text.includes(other.customer.id), 'the wallet names nobody else');
  });

  test('the preference center: opt in and out through the consents service, an activity and a webhook per change', async () => {
    const hook = await ok(t, 'POST', `/management/v1/projects/${t.projectId}/webhooks`, { target_url: receiver.url('/consents'), events: ['customer.consents.updated'], active: true }, t.managementHeaders());
    assert.ok(hook.id);
    const before = await cockpit('GET', '/preferences', { token });
    assert.equal(before.status, 200, before.text);
    const answer = (body: Json, id: string) => body.consents.find((c: Json) => c.id === id)?.granted;
    assert.equal(answer(before.body, shop.newsletter.id), true);
    assert.equal(answer(before.body, shop.sms.id), false);

    const changed = await cockpit('PUT', '/preferences', { token, json: { [shop.newsletter.id]: false, [shop.sms.id]: true } });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(answer(changed.body, shop.newsletter.id), false);
    assert.equal(answer(changed.body, shop.sms.id), true);
    const stored = await ok(t, 'GET', `/v1/customers/${shop.customer.id}/consents`);
    assert.deepEqual(Object.fromEntries(stored.data.map((c: Json) => [c.consent_id, c.granted])), { [shop.newsletter.id]: false, [shop.sms.id]: true });

    const activity = await ok(t, 'GET', `/v1/customers/${shop.customer.id}/activity?limit=10`);
    const event = activity.data.find((e: Json) => e.type === 'customer.consents.updated');
    assert.ok(event, JSON.stringify(activity.data.map((e: Json) => e.type)));
    assert.deepEqual(event.data.data?.consents ?? event.data.consents, { [shop.newsletter.id]: false, [shop.sms.id]: true });
    assert.equal(event.data.event_source.channel, 'CUSTOMER_COCKPIT');

    await t.worker.runPeriodic();
    const delivered = receiver.accepted('/consents').map((r) => JSON.parse(r.body));
    assert.equal(delivered.length, 1, 'one webhook for the change');
    assert.equal(delivered[0].type, 'customer.consents.updated');
    assert.equal(delivered[0].data.customer_id, shop.customer.id);
    assert.deepEqual(delivered[0].data.consents, { [shop.newsletter.id]: false, [shop.sms.id]: true });

    const unknown = await cockpit('PUT', '/preferences', { token, json: { cnst_unknown0000000000: true } });
    assert.equal(unknown.status, 404);
    const bad = await cockpit('PUT', '/preferences', { token, json: { [shop.sms.id]: 'yes' } });
    assert.equal(bad.status, 400);
  });

  test('a tampered link, one for another project or an unknown customer, a rotated one and a deleted customer\'s all get the same 401', async () => {
    const customer = await ok(t, 'POST', '/v1/customers', { source_id: 'rotating', name: 'Rita Rotate' });
    const first = tokenOf(customer.assets.cockpit_url);
    assert.equal((await cockpit('GET', '/wallet', { token: first })).status, 200);

    const [payload, expiry, mac] = first.split('.') as [string, string, string];
    const flipped = `${payload}.${expiry}.${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`;
    const otherCustomer = `${Buffer.from(`${t.projectId}:cust_0000000000000000000000`).toString('base64url')}.${expiry}.${mac}`;
    const otherProject = `${Buffer.from(`proj_0000000000000000000000:${customer.id}`).toString('base64url')}.${expiry}.${mac}`;
    const longer = `${payload}.${(Number.parseInt(expiry, 36) + 365).toString(36)}.${mac}`;
    const withoutExpiry = `${payload}.${mac}`;
    const refusals = [
      await cockpit('GET', '/wallet'),
      await cockpit('GET', '/wallet', { token: 'nonsense' }),
      ...(await Promise.all([flipped, otherCustomer, otherProject, longer, withoutExpiry].map((tk) => cockpit('GET', '/wallet', { token: tk })))),
    ];

    const rotated = await ok(t, 'POST', `/v1/customers/${customer.id}/cockpit/rotate`);
    const second = tokenOf(rotated.assets.cockpit_url);
    assert.notEqual(second, first);
    assert.deepEqual((await ok(t, 'GET', `/v1/customers/${customer.id}`)).assets, rotated.assets, 'reads show the new link');
    refusals.push(await cockpit('GET', '/wallet', { token: first }));
    assert.equal((await cockpit('GET', '/wallet', { token: second })).status, 200);

    await ok(t, 'DELETE', `/v1/customers/${customer.id}`);
    refusals.push(await cockpit('GET', '/wallet', { token: second }));
    await ok(t, 'POST', `/v1/customers/${customer.id}/permanent-deletion`);
    refusals.push(await cockpit('GET', '/wallet', { token: second }));
    assert.equal(await t.deps.db.selectFrom('cockpit_links').select('customer_id').where('customer_id', '=', customer.id).executeTakeFirst(), undefined);

    for (const refusal of refusals) {
      assert.equal(refusal.status, 401, refusal.text);
      assert.equal(refusal.headers.get('cache-control'), 'no-store');
      assert.equal(refusal.body.key, 'unauthorized');
      assert.equal(refusal.body.details, refusals[0]!.body.details, 'every refusal says the same');
    }
    const missing = await t.request('POST', '/v1/customers/cust_nobody/cockpit/rotate');
    assert.equal(missing.status, 404);
  });

  test('a link expires PUNCHCARD_COCKPIT_LINK_DAYS after it was handed out; the customer object then carries a new one', async () => {
    const customer = await ok(t, 'POST', '/v1/customers', { source_id: 'expiring', name: 'Eve Expiry' });
    const link = tokenOf(customer.assets.cockpit_url);
    const days = t.deps.config.cockpitLinkDays;
    assert.equal(days, 90);
    assert.equal(tokenOf((await ok(t, 'GET', `/v1/customers/${customer.id}`)).assets.cockpit_url), link, 'the same link all day');
    t.clock.advance(days * 24 * 3600 * 1000);
    assert.equal((await cockpit('GET', '/wallet', { token: link })).status, 200, `still open ${days} days later`);
    t.clock.advance(24 * 3600 * 1000 + 1000);
    const expired = await cockpit('GET', '/wallet', { token: link });
    assert.equal(expired.status, 401, 'closed once its last day is over');
    assert.match(expired.body.details, /expired/);
    const fresh = tokenOf((await ok(t, 'GET', `/v1/customers/${customer.id}`)).assets.cockpit_url);
    assert.notEqual(fresh, link);
    assert.equal((await cockpit('GET', '/wallet', { token: fresh })).status, 200);
  });

  test("a deleted project's links stop at once: no wallet, no preference change, no points spent", async () => {
    const created = await t.request('POST', '/management/v1/projects', {
      headers: t.managementHeaders(),
      json: { name: 'Pop-up store', case_sensitive_codes: false, timezone: 'UTC', currency: 'EUR' },
    });
    assert.equal(created.status, 200, created.text);
    const keys = created.body.server_side_key as { app_id: string; app_token: string };
    const popUp = { ...t, projectId: created.body.id as string, request: (method: string, path: string, options: Parameters<TestApp['request']>[2] = {}) => t.request(method, path, { headers: t.serverHeaders(keys), ...options }) } as TestApp;
    const other = await cockpitShop(popUp);
    const link = tokenOf(other.customer.assets.cockpit_url);
    assert.equal((await cockpit('GET', '/wallet', { token: link })).status, 200);

    const deleted = await t.request('DELETE', `/management/v1/projects/${created.body.id}`, { headers: t.managementHeaders() });
    assert.equal(deleted.status, 204, deleted.text);
    const attempts = [
      await cockpit('GET', '/wallet', { token: link }),
      await cockpit('GET', '/preferences', { token: link }),
      await cockpit('PUT', '/preferences', { token: link, json: { [other.sms.id]: false } }),
      await cockpit('GET', `/cards/${other.card}/transactions`, { token: link }),
      await cockpit('POST', `/cards/${other.card}/redemption`, { token: link, json: { reward_id: other.rewardId }, headers: { 'idempotency-key': 'after-deletion' } }),
    ];
    for (const attempt of attempts) assert.equal(attempt.status, 401, attempt.text);
    const card = await t.db.db.selectFrom('vouchers').select('loyalty_balance').where('code', '=', other.card).where('project_id', '=', created.body.id).executeTakeFirstOrThrow();
    assert.equal(Number(card.loyalty_balance), 350, 'no points were spent');
  });

  test('the page is served with no-store, no referrer and no framing at both addresses', async () => {
    for (const path of ['/cockpit', '/cockpit/preferences']) {
      const res = await t.request('GET', path, { headers: {} });
      assert.equal(res.status, 200, res.text);
      assert.match(res.headers.get('content-type') ?? '', /text\/html/);
      assert.equal(res.headers.get('cache-control'), 'no-store');
      assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
      assert.equal(res.headers.get('x-frame-options'), 'DENY');
    }
  });

  test('an address that keeps trying bad links is slowed down: 429, even with a good link, until the window ends', async () => {
    t.clock.advance(10 * 60_000); // a fresh window: the refusals of the tests above are forgotten
    token = tokenOf((await ok(t, 'GET', `/v1/customers/${shop.customer.id}`)).assets.cockpit_url); // the clock moved on past earlier links
    for (let i = 0; i < 20; i++) assert.equal((await cockpit('GET', '/wallet', { token: `guess.zz.${'A'.repeat(43)}` })).status, 401);
    const limited = await cockpit('GET', '/wallet', { token: `guess.zz.${'A'.repeat(43)}` });
    assert.equal(limited.status, 429);
    assert.equal(limited.body.key, 'too_many_requests');
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
    assert.equal((await cockpit('GET', '/wallet', { token })).status, 429);
    t.clock.advance(10 * 60_000);
    assert.equal((await cockpit('GET', '/wallet', { token })).status, 200);
  });
});
