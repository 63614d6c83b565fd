import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DomainError } from '../../src/domain/errors.ts';
import { createCampaign } from '../../src/services/campaigns/campaigns.ts';
import { inTransaction, type Actor } from '../../src/services/context.ts';
import { creditCredits, creditPoints, debitCredits, debitPoints, expireDueBuckets } from '../../src/services/ledger/ledger.ts';
import { findLiveVoucherById, type VoucherRow } from '../../src/store/vouchers.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

// The balance ledger: every change is a conditional update plus a transaction; balances never go below
// zero; the lifetime counters and the transactions always explain the balance.

describe('points and credits ledger', () => {
  let t: TestApp;
  let actor: Actor;
  before(async () => {
    t = await startTestApp();
    actor = { projectId: t.projectId, requestId: 'v-test', source: { channel: 'API' } };
  });
  after(async () => t.close());

  async function cards(name: string, count: number, points = 0): Promise<VoucherRow[]> {
    const campaign = await createCampaign(t.deps, actor, {
      name,
      vouchers_count: count,
      voucher: { type: 'LOYALTY_CARD', loyalty_card: { points } },
    });
    const rows = await t.deps.db.selectFrom('vouchers').selectAll().where('campaign_id', '=', campaign.id).orderBy('id').execute();
    return rows;
  }

  async function fresh(card: VoucherRow): Promise<VoucherRow> {
    const row = await findLiveVoucherById(t.deps.db, t.projectId, card.id);
    assert.ok(row);
    return row;
  }

  async function assertConsistent(card: VoucherRow, startingPoints: number): Promise<void> {
    const row = await fresh(card);
    const balance = Number(row.loyalty_balance);
    assert.ok(balance >= 0, 'never below zero');
    assert.equal(
      balance,
      Number(row.loyalty_points) - Number(row.loyalty_expired_points) - Number(row.loyalty_subtracted_points) - Number(row.redeemed_points),
      'balance = points − expired − subtracted − redeemed',
    );
    const txs = await t.deps.db.selectFrom('voucher_transactions').select(['amount', 'balance_after']).where('voucher_id', '=', card.id).orderBy('id').execute();
    const sum = txs.reduce((s, x) => s + Number(x.amount), 0);
    assert.equal(sum + startingPoints, balance, 'the ledger sums to the balance');
    const last = txs.at(-1);
    if (last) assert.equal(Number(last.balance_after), balance);
    const buckets = await t.deps.db.selectFrom('loyalty_buckets').select('points').where('voucher_id', '=', card.id).where('status', '=', 'ACTIVE').execute();
    assert.ok(buckets.reduce((s, b) => s + Number(b.points), 0) <= balance, 'buckets never hold more than the balance');
  }

  test('credits, debits, soonest-expiring first, and a refused overdraft that changes nothing', async () => {
    const [card] = await cards('Ledger basics', 1, 100);
    assert.ok(card);
    await inTransaction(t.deps, async (tx) => {
      await creditPoints(tx, t.deps, actor, card, 'POINTS_ADDITION', { points: 50, expiresAt: '2026-12-31' });
      await creditPoints(tx, t.deps, actor, card, 'POINTS_ACCRUAL', { points: 30, expiresAt: '2026-06-30', operationType: 'AUTOMATIC' });
    });
    // 180 = 100 own + 50 (Dec) + 30 (Jun). Spending 40 takes the June bucket first, then 10 from December.
    const spent = await inTransaction(t.deps, (tx) => debitPoints(tx, t.deps, actor, card, 'POINTS_REDEMPTION', { points: 40, today: '2026-03-02' }));
    assert.equal(spent.balance.balance, 140);
    assert.equal(spent.balance.points, -40);
    const buckets = await t.deps.db.selectFrom('loyalty_buckets').selectAll().where('voucher_id', '=', card.id).orderBy('expires_at').execute();
    assert.deepEqual(buckets.map((b) => [b.expires_at, Number(b.points)]), [['2026-06-30', 0], ['2026-12-31', 40]]);

    const before = await fresh(card);
    await assert.rejects(
      inTransaction(t.deps, (tx) => debitPoints(tx, t.deps, actor, card, 'POINTS_REMOVAL', { points: 141, today: '2026-03-02' })),
      (error: unknown) => error instanceof DomainError && error.key === 'loyalty_card_points_exceeded' && error.status === 400,
    );
    assert.deepEqual(await fresh(card), before, 'a refused debit changes nothing');
    await assertConsistent(card, 100);
  });

  test('expired points are gone before anything is spent, exactly at the day boundary', async () => {
    const [card] = await cards('Ledger expiry', 1);
    assert.ok(card);
    await inTransaction(t.deps, (tx) => creditPoints(tx, t.deps, actor, card, 'POINTS_ADDITION', { points: 70, expiresAt: '2026-04-30' }));
    // Still usable on its last day.
    await inTransaction(t.deps, (tx) => expireDueBuckets(tx, t.deps, actor, card, '2026-04-30'));
    assert.equal(Number((await fresh(card)).loyalty_balance), 70);
    // The next day they cannot be spent: the debit expires them first and then finds nothing.
    await assert.rejects(
      inTransaction(t.deps, (tx) => debitPoints(tx, t.deps, actor, card, 'POINTS_REDEMPTION', { points: 10, today: '2026-05-01' })),
      (error: unknown) => error instanceof DomainError && error.key === 'loyalty_card_points_exceeded',
    );
    // (the refused debit rolled its expiry back too; the expiry run does it for real)
    const expired = await inTransaction(t.deps, (tx) => expireDueBuckets(tx, t.deps, actor, card, '2026-05-01'));
    assert.equal(expired, 70);
    const row = await fresh(card);
    assert.equal(Number(row.loyalty_balance), 0);
    assert.equal(Number(row.loyalty_expired_points), 70);
    await assertConsistent(card, 0);
  });

  test('a refund puts points back into the buckets they came from', async () => {
    const [card] = await cards('Ledger refund', 1);
    assert.ok(card);
    await inTransaction(t.deps, (tx) => creditPoints(tx, t.deps, actor, card, 'POINTS_ADDITION', { points: 20, expiresAt: '2026-09-30' }));
    const spent = await inTransaction(t.deps, (tx) => debitPoints(tx, t.deps, actor, card, 'POINTS_REDEMPTION', { points: 15, today: '2026-03-02' }));
    const tx = await t.deps.db.selectFrom('voucher_transactions').select('bucket_moves').where('id', '=', spent.transaction.id).executeTakeFirstOrThrow();
    const moves = JSON.parse(tx.bucket_moves ?? '{}') as Record<string, number>;
    await inTransaction(t.deps, (trx) => creditPoints(trx, t.deps, actor, card, 'POINTS_REFUND', { points: 15, refill: moves }));
    const row = await fresh(card);
    assert.equal(Number(row.loyalty_balance), 20);
    assert.equal(Number(row.redeemed_points), 0);
    const [bucket] = await t.deps.db.selectFrom('loyalty_buckets').select('points').where('voucher_id', '=', card.id).execute();
    assert.equal(Number(bucket?.points), 20);
    await assertConsistent(card, 0);
  });

  test('random sequences keep every invariant (property test)', async () => {
    const set = await cards('Ledger property', 4, 10);
    let seed = 42;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const days = ['2026-03-10', '2026-04-10', '2026-05-10', null];
    for (let step = 0; step < 150; step++) {
      const card = set[rand(set.length)] as VoucherRow;
      const other = set[rand(set.length)] as VoucherRow;
      const points = 1 + rand(40);
      const today = `2026-0${3 + rand(3)}-1${rand(9)}`;
      try {
        await inTransaction(t.deps, async (tx) => {
          switch (rand(4)) {
            case 0:
              await creditPoints(tx, t.deps, actor, card, 'POINTS_ADDITION', { points, expiresAt: days[rand(days.length)] ?? null });
              break;
            case 1:
              await debitPoints(tx, t.deps, actor, card, 'POINTS_REMOVAL', { points, today });
              break;
            case 2:
              await debitPoints(tx, t.deps, actor, card, 'POINTS_REDEMPTION', { points, today });
              break;
            case 3:
              if (other.id === card.id) return;
              await debitPoints(tx, t.deps, actor, card, 'POINTS_TRANSFER_OUT', { points, today });
              await creditPoints(tx, t.deps, actor, other, 'POINTS_TRANSFER_IN', { points, expiresAt: null });
              break;
          }
        });
      } catch (error) {
        if (!(error instanceof DomainError && error.key === 'loyalty_card_points_exceeded')) throw error;
      }
    }
    for (const card of set) await assertConsistent(card, 10);
  });

  test('50 concurrent spends against one card never overspend', async () => {
    const [card] = await cards('Ledger race', 1, 1000);
    assert.ok(card);
    const attempts = await Promise.allSettled(
      Array.from({ length: 50 }, () => inTransaction(t.deps, (tx) => debitPoints(tx, t.deps, actor, card, 'POINTS_REDEMPTION', { points: 30, today: '2026-03-02' }))),
    );
    const ok = attempts.filter((a) => a.status === 'fulfilled').length;
    for (const a of attempts) {
      if (a.status === 'rejected') assert.ok(a.reason instanceof DomainError && a.reason.key === 'loyalty_card_points_exceeded', String(a.reason));
    }
    assert.equal(ok, 33, '1000 / 30 = 33 spends fit');
    assert.equal(Number((await fresh(card)).loyalty_balance), 10);
    await assertConsistent(card, 1000);
  });

  test('gift credits: redeem, refund, and an overdraft refused with gift_amount_exceeded', async () => {
    const campaign = await createCampaign(t.deps, actor, { name: 'Gift ledger', vouchers_count: 1, voucher: { type: 'GIFT_VOUCHER', gift: { amount: 2000 } } });
    const [card] = await t.deps.db.selectFrom('vouchers').selectAll().where('campaign_id', '=', campaign.id).execute();
    assert.ok(card);
    const used = await inTransaction(t.deps, (tx) => debitCredits(tx, t.deps, actor, card, 'CREDITS_REDEMPTION', { points: 1500 }));
    assert.equal(used.balance.balance, 500);
    assert.equal(used.balance.type, 'gift_voucher');
    await assert.rejects(
      inTransaction(t.deps, (tx) => debitCredits(tx, t.deps, actor, card, 'CREDITS_REDEMPTION', { points: 501 })),
      (error: unknown) => error instanceof DomainError && error.key === 'gift_amount_exceeded',
    );
    await inTransaction(t.deps, (tx) => creditCredits(tx, t.deps, actor, card, 'CREDITS_REFUND', { points: 1500 }));
    await inTransaction(t.deps, (tx) => creditCredits(tx, t.deps, actor, card, 'CREDITS_ADDITION', { points: 100 }));
    const row = await fresh(card);
    assert.equal(Number(row.gift_balance), 2100);
    assert.equal(Number(row.gift_amount), 2100);
    assert.equal(Number(row.redeemed_amount), 0);
    assert.equal(Number(row.gift_balance), Number(row.gift_amount) - Number(row.gift_subtracted_amount) - Number(row.redeemed_amount));
  });
});
