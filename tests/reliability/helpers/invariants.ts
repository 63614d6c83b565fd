import type { Db } from '../../../src/store/db.ts';

// What must hold in any committed state of the database, whatever ran before — a storm of concurrent
// requests, a kill -9 mid-transaction, two processes at once. Each check reads the tables directly
// (the API could hide a broken row behind a computed answer) and reports every violation it finds.
//
// Ledger arithmetic (src/services/ledger/ledger.ts):
//   gift:    balance = amount − subtracted − redeemed_amount
//            amount = start + Σ CREDITS_ADDITION, subtracted = −Σ CREDITS_REMOVAL,
//            redeemed_amount = −Σ CREDITS_REDEMPTION − Σ CREDITS_REFUND
//   loyalty: balance = points − expired − subtracted − redeemed_points
//            points = start + Σ (ADDITION, ACCRUAL, TRANSFER_IN, PENDING_POINTS_ACTIVATION),
//            subtracted = −Σ (REMOVAL, TRANSFER_OUT), expired = −Σ EXPIRATION,
//            redeemed_points = −Σ POINTS_REDEMPTION − Σ POINTS_REFUND
//   and for both: start + Σ every transaction = balance.

export interface InvariantExpectations {
  /** Balance each card had before its first ledger transaction (known when the suite created it). */
  startingBalances?: ReadonlyMap<string, number>;
  /** Units each reward had in stock when the suite created it. */
  rewardStock?: ReadonlyMap<string, number>;
}

const POINT_CREDITS = new Set(['POINTS_ADDITION', 'POINTS_ACCRUAL', 'POINTS_TRANSFER_IN', 'PENDING_POINTS_ACTIVATION']);

function n(value: unknown): number {
  return value === null || value === undefined ? 0 : Number(value);
}

export async function findViolations(db: Db, expect: InvariantExpectations = {}): Promise<string[]> {
  const problems: string[] = [];
  const vouchers = await db
    .selectFrom('vouchers')
    .select([
      'id',
      'code',
      'type',
      'gift_amount',
      'gift_subtracted_amount',
      'gift_balance',
      'loyalty_points',
      'loyalty_balance',
      'loyalty_expired_points',
      'loyalty_subtracted_points',
      'redemption_quantity',
      'redeemed_quantity',
      'redeemed_amount',
      'redeemed_points',
    ])
    .execute();

  const sums = new Map<string, Map<string, number>>();
  const txRows = await db
    .selectFrom('voucher_transactions')
    .select(['voucher_id', 'type', (eb) => eb.fn.sum<number>('amount').as('total')])
    .groupBy(['voucher_id', 'type'])
    .execute();
  for (const row of txRows) {
    const byType = sums.get(row.voucher_id) ?? new Map<string, number>();
    byType.set(row.type, n(row.total));
    sums.set(row.voucher_id, byType);
  }

  const successes = new Map<string, number>();
  const counted = await db
    .selectFrom('redemptions')
    .select(['voucher_id', (eb) => eb.fn.countAll<number>().as('count')])
    .where('object', '=', 'redemption')
    .where('result', '=', 'SUCCESS')
    .where('status', '=', 'SUCCEEDED')
    .where('voucher_id', 'is not', null)
    .groupBy('voucher_id')
    .execute();
  for (const row of counted) if (row.voucher_id !== null) successes.set(row.voucher_id, n(row.count));

  const activeBuckets = new Map<string, number>();
  for (const bucket of await db.selectFrom('loyalty_buckets').select(['id', 'voucher_id', 'points', 'status']).execute()) {
    if (n(bucket.points) < 0) problems.push(`bucket ${bucket.id} holds ${n(bucket.points)} points`);
    if (bucket.status === 'ACTIVE') activeBuckets.set(bucket.voucher_id, (activeBuckets.get(bucket.voucher_id) ?? 0) + n(bucket.points));
  }

  for (const v of vouchers) {
    const label = `${v.type} ${v.code} (${v.id})`;
    const t = sums.get(v.id) ?? new Map<string, number>();
    const sum = (...types: string[]) => types.reduce((s, type) => s + (t.get(type) ?? 0), 0);
    const all = [...t.values()].reduce((s, x) => s + x, 0);
    const quantity = v.redemption_quantity === null ? null : n(v.redemption_quantity);
    const redeemed = n(v.redeemed_quantity);
    if (redeemed < 0) problems.push(`${label}: redeemed_quantity ${redeemed} < 0`);
    if (quantity !== null && redeemed > quantity) problems.push(`${label}: redeemed_quantity ${redeemed} > quantity ${quantity}`);
    const records = successes.get(v.id) ?? 0;
    if (records !== redeemed) problems.push(`${label}: redeemed_quantity ${redeemed} but ${records} successful, not rolled back redemption records`);

    if (v.type === 'GIFT_VOUCHER') {
      const balance = n(v.gift_balance);
      const amount = n(v.gift_amount);
      const subtracted = n(v.gift_subtracted_amount);
      const redeemedAmount = n(v.redeemed_amount);
      if (balance < 0) problems.push(`${label}: gift balance ${balance} < 0`);
      if (balance !== amount - subtracted - redeemedAmount) problems.push(`${label}: balance ${balance} ≠ amount ${amount} − subtracted ${subtracted} − redeemed ${redeemedAmount}`);
      if (subtracted !== -sum('CREDITS_REMOVAL')) problems.push(`${label}: subtracted ${subtracted} ≠ removals ${-sum('CREDITS_REMOVAL')}`);
      if (redeemedAmount !== -sum('CREDITS_REDEMPTION', 'CREDITS_REFUND')) {
        problems.push(`${label}: redeemed_amount ${redeemedAmount} ≠ redemptions − refunds ${-sum('CREDITS_REDEMPTION', 'CREDITS_REFUND')}`);
      }
      const start = expect.startingBalances?.get(v.id) ?? amount - sum('CREDITS_ADDITION');
      if (start < 0) problems.push(`${label}: starting credits ${start} < 0`);
      if (start + all !== balance) problems.push(`${label}: start ${start} + ledger ${all} ≠ balance ${balance}`);
    }
    if (v.type === 'LOYALTY_CARD') {
      const balance = n(v.loyalty_balance);
      const points = n(v.loyalty_points);
      const expired = n(v.loyalty_expired_points);
      const subtracted = n(v.loyalty_subtracted_points);
      const redeemedPoints = n(v.redeemed_points);
      if (balance < 0) problems.push(`${label}: points balance ${balance} < 0`);
      if (balance !== points - expired - subtracted - redeemedPoints) {
        problems.push(`${label}: balance ${balance} ≠ points ${points} − expired ${expired} − subtracted ${subtracted} − redeemed ${redeemedPoints}`);
      }
      if (subtracted !== -sum('POINTS_REMOVAL', 'POINTS_TRANSFER_OUT')) problems.push(`${label}: subtracted ${subtracted} ≠ removals and transfers out ${-sum('POINTS_REMOVAL', 'POINTS_TRANSFER_OUT')}`);
      if (expired !== -sum('POINTS_EXPIRATION')) problems.push(`${label}: expired ${expired} ≠ expirations ${-sum('POINTS_EXPIRATION')}`);
      if (redeemedPoints !== -sum('POINTS_REDEMPTION', 'POINTS_REFUND')) {
        problems.push(`${label}: redeemed_points ${redeemedPoints} ≠ redemptions − refunds ${-sum('POINTS_REDEMPTION', 'POINTS_REFUND')}`);
      }
      const credited = [...t.entries()].filter(([type]) => POINT_CREDITS.has(type)).reduce((s, [, x]) => s + x, 0);
      const start = expect.startingBalances?.get(v.id) ?? points - credited;
      if (start < 0) problems.push(`${label}: starting points ${start} < 0`);
      if (start + all !== balance) problems.push(`${label}: start ${start} + ledger ${all} ≠ balance ${balance}`);
      const held = activeBuckets.get(v.id) ?? 0;
      if (held > balance) problems.push(`${label}: active buckets hold ${held} points, more than the balance ${balance}`);
    }
  }

  for (const reward of await db.selectFrom('rewards').select(['id', 'stock', 'redeemed']).execute()) {
    if (reward.stock !== null && n(reward.stock) < 0) problems.push(`reward ${reward.id}: stock ${n(reward.stock)} < 0`);
    const initial = expect.rewardStock?.get(reward.id);
    if (initial !== undefined && n(reward.stock) + n(reward.redeemed) !== initial) {
      problems.push(`reward ${reward.id}: stock ${n(reward.stock)} + redeemed ${n(reward.redeemed)} ≠ initial stock ${initial}`);
    }
  }

  // Both halves of a transfer commit together and point at each other.
  const transfers = await db
    .selectFrom('voucher_transactions')
    .select(['id', 'type', 'amount', 'related_transaction_id'])
    .where('type', 'in', ['POINTS_TRANSFER_OUT', 'POINTS_TRANSFER_IN'])
    .execute();
  const byId = new Map(transfers.map((x) => [x.id, x]));
  for (const x of transfers) {
    const other = x.related_transaction_id === null ? undefined : byId.get(x.related_transaction_id);
    if (!other || other.related_transaction_id !== x.id || n(other.amount) !== -n(x.amount) || other.type === x.type) {
      problems.push(`transfer transaction ${x.id} (${x.type} ${n(x.amount)}) has no matching other half`);
    }
  }

  const orphans = await db
    .selectFrom('redemptions')
    .leftJoin('orders', 'orders.id', 'redemptions.order_id')
    .select(['redemptions.id', 'redemptions.order_id'])
    .where('redemptions.order_id', 'is not', null)
    .where('orders.id', 'is', null)
    .execute();
  for (const o of orphans) problems.push(`redemption ${o.id} names order ${o.order_id ?? '?'} that does not exist`);

  // An event exists exactly when its change committed (ARCHITECTURE "Event log"): every stored redemption
  // or rollback record has its event, and every such event names a stored record.
  const records = await db.selectFrom('redemptions').select(['id', 'object', 'result']).execute();
  const events = await db
    .selectFrom('events')
    .select(['entity_id', 'type'])
    .where('type', 'in', ['redemption.succeeded', 'redemption.failed', 'redemption.rollback.succeeded', 'redemption.rollback.failed'])
    .execute();
  const eventKeys = new Set(events.map((e) => `${e.type} ${e.entity_id ?? ''}`));
  const recordIds = new Set(records.map((r) => r.id));
  for (const r of records) {
    const kind = r.object === 'redemption' ? 'redemption' : 'redemption.rollback';
    const type = `${kind}.${r.result === 'SUCCESS' ? 'succeeded' : 'failed'}`;
    if (!eventKeys.has(`${type} ${r.id}`)) problems.push(`${r.object} ${r.id} (${r.result}) has no ${type} event`);
  }
  for (const e of events) if (e.entity_id === null || !recordIds.has(e.entity_id)) problems.push(`event ${e.type} names ${e.entity_id ?? 'nothing'}, which is not stored`);

  // The list totals kept in redemption_counts (migration 0025) are the records, counted.
  const key = (r: { project_id: string; campaign_name: string | null; result: string }) => `${r.project_id} "${r.campaign_name ?? ''}" ${r.result}`;
  const stored = new Map<string, number>();
  for (const r of await db.selectFrom('redemptions').select(['project_id', 'campaign_name', 'result', (eb) => eb.fn.countAll<number>().as('n')]).groupBy(['project_id', 'campaign_name', 'result']).execute()) {
    stored.set(key(r), (stored.get(key(r)) ?? 0) + n(r.n));
  }
  const kept = new Map<string, number>();
  for (const r of await db.selectFrom('redemption_counts').select(['project_id', 'campaign_name', 'result', (eb) => eb.fn.sum<number>('n').as('n')]).groupBy(['project_id', 'campaign_name', 'result']).execute()) {
    kept.set(key(r), n(r.n));
  }
  for (const k of new Set([...stored.keys(), ...kept.keys()])) {
    if ((stored.get(k) ?? 0) !== (kept.get(k) ?? 0)) problems.push(`redemption_counts ${k}: ${kept.get(k) ?? 0}, but ${stored.get(k) ?? 0} records`);
  }

  return problems;
}
