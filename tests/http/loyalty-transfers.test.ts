import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type KeyPairOut, type TestApp } from '../helpers/app.ts';

// Points transfers (seed 4.7; loyalty reference 3; DECISIONS 16, 17): the destination card answered, the
// linked OUT/IN transactions, expiry by the destination program, all-or-nothing arrays, every refusal,
// and opposite transfers racing without deadlocks or overspending.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe('loyalty points transfers', () => {
  let t: TestApp;
  let other: KeyPairOut;
  let serial = 0;
  before(async () => {
    t = await startTestApp({ clockStart: '2026-03-02T10:00:00.000Z' });
    const created = await t.request('POST', '/management/v1/projects', {
      headers: t.managementHeaders(),
      json: { name: 'Other', case_sensitive_codes: false, timezone: 'UTC', currency: 'USD' },
    });
    other = created.body.server_side_key;
  });
  after(async () => t.close());

  async function members(name: string, count: number, points: number, extra: Record<string, unknown> = {}): Promise<{ program: Json; cards: Json[] }> {
    const program: Json = await t.sdk().loyalties.create({ name, vouchers_count: count, voucher: { type: 'LOYALTY_CARD', loyalty_card: { points, ...extra } } } as never);
    const cards: Json[] = [];
    for (let i = 0; i < count; i++) cards.push(await t.sdk().loyalties.createMember(program.id, { customer: { source_id: `${name}-${serial++}` } }));
    return { program, cards };
  }

  async function snapshot(ids: string[]): Promise<Json> {
    const cards = await t.deps.db.selectFrom('vouchers').selectAll().where('id', 'in', ids).orderBy('id').execute();
    const txs = await t.deps.db.selectFrom('voucher_transactions').select('id').where('voucher_id', 'in', ids).execute();
    const buckets = await t.deps.db.selectFrom('loyalty_buckets').selectAll().where('voucher_id', 'in', ids).orderBy('id').execute();
    return { cards, transactions: txs.length, buckets };
  }

  test('the SDK moves points: destination card answered, OUT and IN linked, details, expiry by the destination program', async () => {
    const donors = await members('Transfer donors', 1, 500);
    // The destination program's points last through the end of next month.
    const dest = await members('Transfer destination', 1, 0, { expiration_rules: { period_type: 'MONTH', period_value: 1, rounding_type: 'END_OF_MONTH' } });
    const donor = donors.cards[0];
    const destination = dest.cards[0];
    const answered: Json = await t.sdk().loyalties.transferPoints(dest.program.id, destination.code, [{ code: donor.code, points: 200, reason: 'merge', source_id: 'tr-1' }]);
    for (const key of ['id', 'code', 'category', 'category_id', 'type', 'loyalty_card', 'start_date', 'expiration_date', 'validity_timeframe', 'validity_day_of_week', 'active', 'additional_info', 'metadata', 'is_referral_code', 'created_at', 'assets', 'holder_id', 'publish', 'redemption']) {
      assert.ok(key in answered, `destination card has ${key}`);
    }
    assert.equal(answered.id, destination.id);
    assert.equal(answered.loyalty_card.points, 200);
    assert.equal(answered.loyalty_card.balance, 200);
    assert.equal(answered.loyalty_card.next_expiration_date, '2026-04-30');
    assert.equal(answered.loyalty_card.next_expiration_points, 200);
    const donorNow: Json = await t.sdk().loyalties.getMember(null, donor.code);
    assert.equal(donorNow.loyalty_card.balance, 300);
    assert.equal(donorNow.loyalty_card.subtracted_points, 200);

    const [out] = (await t.sdk().loyalties.listCardTransactions(donor.code, null)).data as Json[];
    const [into] = (await t.sdk().loyalties.listCardTransactions(destination.code, dest.program.id)).data as Json[];
    assert.equal(out.type, 'POINTS_TRANSFER_OUT');
    assert.equal(into.type, 'POINTS_TRANSFER_IN');
    assert.equal(out.related_transaction_id, into.id);
    assert.equal(into.related_transaction_id, out.id);
    assert.equal(out.details.balance.points, -200);
    assert.equal(into.details.balance.points, 200);
    for (const x of [out, into]) {
      assert.equal(x.reason, 'merge');
      assert.equal(x.source_id, 'tr-1');
      assert.equal(x.source, 'API');
    }
    assert.equal(out.details.destination_voucher.id, destination.id);
    assert.equal(out.details.destination_voucher.code, destination.code);
    assert.equal(out.details.destination_voucher.campaign, 'Transfer destination');
    assert.equal(into.details.source_voucher.id, donor.id);
    assert.equal(into.details.source_voucher.loyalty_card.balance, 500, 'the donor as it was before the move');
    const [bucket] = (await t.sdk().loyalties.getPointsExpiration(dest.program.id, destination.code)).data as Json[];
    assert.equal(bucket.expires_at, '2026-04-30');
    assert.equal(bucket.bucket.total_points, 200);

    // Both members see the transfer in their activity.
    for (const [card, program] of [[donor, donors.program], [destination, dest.program]] as const) {
      const activity: Json = await t.sdk().loyalties.listMemberActivity(program.id, card.code);
      const moved = activity.data.find((a: Json) => a.type === 'customer.voucher.loyalty_card.points_transferred');
      assert.ok(moved, `activity of ${card.code}`);
      assert.equal(moved.data.source_voucher.code, donor.code);
      assert.equal(moved.data.destination_voucher.code, destination.code);
      assert.equal(moved.data.customer.id, card.holder_id);
    }
  });

  test('several donors in one request; one short donor and nothing moves', async () => {
    const { program, cards } = await members('Transfer many', 3, 100);
    const [x, y, z] = cards;
    const moved: Json = await t.sdk().loyalties.transferPoints(program.id, z.code, [
      { code: x.code, points: 40, source_id: 'a' },
      { code: y.code, points: 60, source_id: 'b' },
      { code: x.code, points: 10, source_id: 'c' },
    ]);
    assert.equal(moved.loyalty_card.balance, 210);
    const ins = (await t.sdk().loyalties.listCardTransactions(z.code, null)).data.filter((tx: Json) => tx.type === 'POINTS_TRANSFER_IN');
    assert.equal(ins.length, 3, 'one IN transaction per donor item');

    const before = await snapshot([x.id, y.id, z.id]);
    const refused = await t.request('POST', `/v1/loyalties/${program.id}/members/${z.code}/transfers`, {
      json: [
        { code: x.code, points: 50, source_id: 'd' },
        { code: y.code, points: 41, source_id: 'e' },
      ],
    });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.key, 'loyalty_card_points_exceeded');
    assert.match(refused.body.details, /Item \[1\]/);
    assert.equal(refused.body.resource_id, y.code);
    assert.deepEqual(await snapshot([x.id, y.id, z.id]), before, 'the first item was rolled back too');
  });

  test('every refusal is a precise 4xx and changes nothing', async () => {
    const { program, cards } = await members('Transfer refusals', 3, 100);
    const [a, b, c] = cards;
    const spare: Json = await t.sdk().loyalties.create({ name: 'Transfer spare', vouchers_count: 1, voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 50 } } } as never);
    const unheld = (await t.deps.db.selectFrom('vouchers').select('code').where('campaign_id', '=', spare.id).executeTakeFirstOrThrow()).code;
    const coupons: Json = await t.sdk().campaigns.create({ name: 'Transfer coupons', campaign_type: 'DISCOUNT_COUPONS', vouchers_count: 1, voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 5 } } } as never);
    const coupon = (await t.deps.db.selectFrom('vouchers').select('code').where('campaign_id', '=', coupons.id).executeTakeFirstOrThrow()).code;
    const otherProgram = await members('Transfer elsewhere', 1, 0);
    const before = await snapshot([a.id, b.id, c.id]);
    const to = (code: string, campaign = program.id) => `/v1/loyalties/${campaign}/members/${code}/transfers`;
    const cases: Array<[string, unknown, number, string, RegExp]> = [
      [to(a.code), [{ code: a.code, points: 1 }], 400, 'invalid_payload', /to itself/],
      [to(a.code), [{ code: unheld, points: 1 }], 400, 'invalid_payload', /no holder/],
      [to(unheld, spare.id), [{ code: a.code, points: 1 }], 400, 'invalid_payload', /no holder/],
      [to(a.code), [{ code: coupon, points: 1 }], 400, 'invalid_payload', /not a loyalty card/],
      [to(a.code), [{ code: 'NO-SUCH-CARD', points: 1 }], 404, 'not_found', /voucher/],
      [to('NO-SUCH-CARD'), [{ code: a.code, points: 1 }], 404, 'not_found', /voucher/],
      [to(a.code, otherProgram.program.id), [{ code: b.code, points: 1 }], 404, 'not_found', /voucher/],
      [to(a.code, 'camp_missing'), [{ code: b.code, points: 1 }], 404, 'not_found', /campaign/],
      [to(a.code), [{ code: b.code, points: 0 }], 400, 'invalid_payload', /points/],
      [to(a.code), [{ code: b.code, points: -5 }], 400, 'invalid_payload', /points/],
      [to(a.code), [{ code: b.code }], 400, 'invalid_payload', /points/],
      [to(a.code), [], 400, 'invalid_payload', /.+/],
      [to(a.code), { code: b.code, points: 1 }, 400, 'invalid_payload', /array/],
      [to(a.code), [{ code: b.code, points: 101 }], 400, 'loyalty_card_points_exceeded', /100 points/],
      [to(a.code), [{ code: b.code, points: 1 }, { code: c.code, points: 1 }, { code: a.code, points: 1 }], 400, 'invalid_payload', /\[2\]\.code/],
    ];
    for (const [path, json, status, key, details] of cases) {
      const res = await t.request('POST', path, { json });
      assert.equal(res.status, status, `${path} ${JSON.stringify(json)}: ${res.text}`);
      assert.equal(res.body.key, key, JSON.stringify(json));
      assert.match(res.body.details ?? '', details, JSON.stringify(json));
    }
    const foreign = await t.request('POST', to(a.code), { headers: t.serverHeaders(other), json: [{ code: b.code, points: 1 }] });
    assert.equal(foreign.status, 404);
    assert.deepEqual(await snapshot([a.id, b.id, c.id]), before);
  });

  test('disabled or expired cards and inactive programs cannot give or receive points', async () => {
    const { program, cards } = await members('Transfer validity', 3, 100);
    const [a, b, c] = cards;
    await t.deps.db.updateTable('vouchers').set({ active: false }).where('id', '=', b.id).execute();
    const disabledDonor = await t.request('POST', `/v1/loyalties/${program.id}/members/${a.code}/transfers`, { json: [{ code: b.code, points: 1 }] });
    assert.equal(disabledDonor.status, 400);
    assert.equal(disabledDonor.body.key, 'voucher_disabled');
    const disabledDestination = await t.request('POST', `/v1/loyalties/${program.id}/members/${b.code}/transfers`, { json: [{ code: a.code, points: 1 }] });
    assert.equal(disabledDestination.body.key, 'voucher_disabled');
    await t.deps.db.updateTable('vouchers').set({ expiration_date: '2026-03-01T00:00:00.000Z' }).where('id', '=', c.id).execute();
    const expired = await t.request('POST', `/v1/loyalties/${program.id}/members/${a.code}/transfers`, { json: [{ code: c.code, points: 1 }] });
    assert.equal(expired.status, 400);
    assert.equal(expired.body.key, 'voucher_expired');
    const elsewhere = await members('Transfer validity closed', 1, 0);
    await t.sdk().campaigns.disable(elsewhere.program.id);
    const closed = await t.request('POST', `/v1/loyalties/${elsewhere.program.id}/members/${elsewhere.cards[0].code}/transfers`, { json: [{ code: a.code, points: 1 }] });
    assert.equal(closed.status, 400);
    assert.equal(closed.body.key, 'campaign_not_active');
    assert.equal(Number((await t.deps.db.selectFrom('vouchers').select('loyalty_balance').where('id', '=', a.id).executeTakeFirstOrThrow()).loyalty_balance), 100);
  });

  test('points past their last day cannot be transferred', async () => {
    const { program, cards } = await members('Transfer expired points', 2, 0);
    const [a, b] = cards;
    await t.sdk().loyalties.addOrRemoveCardBalance(a.code, { points: 70, expiration_type: 'CUSTOM_DATE', expiration_date: '2026-03-02' });
    await t.sdk().loyalties.addOrRemoveCardBalance(a.code, { points: 5, expiration_type: 'NON_EXPIRING' });
    t.clock.set('2026-03-03T00:00:00.000Z');
    // No expiry run yet: the 70 points are gone all the same.
    const refused = await t.request('POST', `/v1/loyalties/${program.id}/members/${b.code}/transfers`, { json: [{ code: a.code, points: 6 }] });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.key, 'loyalty_card_points_exceeded');
    const ok: Json = await t.sdk().loyalties.transferPoints(program.id, b.code, [{ code: a.code, points: 5, source_id: 'rest' }]);
    assert.equal(ok.loyalty_card.balance, 5);
    const donor: Json = await t.sdk().loyalties.getMember(null, a.code);
    assert.equal(donor.loyalty_card.balance, 0);
    assert.equal(donor.loyalty_card.expired_points, 70);
    t.clock.set('2026-03-02T12:00:00.000Z');
  });

  test('50 concurrent transfers in opposite directions: no deadlock, no overspending, no points made', async () => {
    const { program, cards } = await members('Transfer race', 3, 300);
    const [a, b, c] = cards;
    const pairs = [
      [a, b],
      [b, a],
      [b, c],
      [c, a],
      [a, c],
    ] as const;
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => {
        const [from, to] = pairs[i % pairs.length] as readonly [Json, Json];
        // Two donors per request in opposite id order, so lock ordering matters.
        const items = i % 2 === 0 ? [{ code: from.code, points: 37, source_id: `race-${i}` }] : [{ code: from.code, points: 23 }, { code: to === a ? b.code : a.code, points: 11 }].filter((item) => item.code !== to.code);
        return t.request('POST', `/v1/loyalties/${program.id}/members/${to.code}/transfers`, { json: items });
      }),
    );
    for (const r of results) assert.ok(r.status === 200 || (r.status === 400 && r.body.key === 'loyalty_card_points_exceeded'), `${r.status} ${r.text}`);
    assert.ok(results.filter((r) => r.status === 200).length >= 25, 'most transfers went through');
    const rows = await t.deps.db.selectFrom('vouchers').selectAll().where('id', 'in', [a.id, b.id, c.id]).execute();
    const total = rows.reduce((s, r) => s + Number(r.loyalty_balance), 0);
    assert.equal(total, 900, 'transfers only move points');
    for (const r of rows) {
      assert.ok(Number(r.loyalty_balance) >= 0);
      const sum = (await t.deps.db.selectFrom('voucher_transactions').select('amount').where('voucher_id', '=', r.id).execute()).reduce((s, x) => s + Number(x.amount), 0);
      assert.equal(300 + sum, Number(r.loyalty_balance), `ledger of ${r.code}`);
    }
  });
});
