import { generateCodes } from '../src/domain/codes/code-config.ts';
import type { VoucherTemplate } from '../src/services/campaigns/campaign-input.ts';
import { voucherRow } from '../src/services/campaigns/voucher-generation.ts';
import { codeKeyOf } from '../src/store/vouchers.ts';
import type { Bulk, Cell, Row } from './bulk.ts';
import { COUPON_CAMPAIGN, type Fixtures } from './fixtures.ts';
import { IdMaker, RowTemplate } from './template.ts';

// Bulk seeding at realistic scale. Small objects were made through the API (bench/fixtures.ts); here the
// big tables are filled with rows that are exactly what the service writes:
// - coupon codes: drawn by the service's own generator (generateCodes) and built by its own row builder
//   (voucherRow), as the code-generation job does;
// - customers: copies of a customer created through the API, with their own id, source_id, name, email,
//   city and creation time;
// - redemption history: copies of one real stacked redemption (coupon + promotion tier + 5-item order:
//   a parent record, two child records, their snapshots and the order), each with its own coupon,
//   customer, ids and time.
// Counters follow the copies: each redeemed coupon's use, every customer's redemption and order totals,
// the tier's summary, the campaign's voucher count. The event log keeps only what the API calls wrote:
// a stacked redemption appends ~34 KB of events (three redemption.succeeded with full snapshots, order
// created and paid), so a cloned log would more than double the database (18 GB at 1M redemptions) while
// the log's size only changes its own append cost.

export interface Scale {
  vouchers: number;
  customers: number;
  redemptions: number;
  /** Loyalty members (made through the API: card, publication, points through the ledger). */
  members: number;
}

export interface TemplateCapture {
  customerSourceId: string;
  /** Wall-clock ms just before the template redemption was sent. */
  requestStartMs: number;
}

export interface SeedReport {
  projectId: string;
  historyRequests: number;
  redemptionRows: number;
  orderRows: number;
  voucherRows: number;
  customerRows: number;
  seconds: number;
}

const BATCH = 20_000;
const HISTORY_DAYS = 90;
const DAY_MS = 86_400_000;

export const TEMPLATE_CUSTOMER = { source_id: 'bench-cust-template', name: 'Template Person', email: 'template@bench.example', city: 'Berlin' };

export function customerSourceId(i: number): string {
  return `bench-cust-${i}`;
}

const CITIES = ['Berlin', 'Hamburg', 'Munich', 'Cologne', 'Frankfurt', 'Stuttgart', 'Leipzig', 'Dresden', 'Bremen', 'Hanover'];

function one(rows: Row[], what: string): Row {
  const row = rows[0];
  if (!row || rows.length !== 1) throw new Error(`expected exactly one ${what}, found ${rows.length}`);
  return row;
}

function num(value: Cell | undefined): number {
  return value === null || value === undefined ? 0 : Number(value);
}

function str(value: Cell | undefined, what: string): string {
  if (typeof value !== 'string') throw new Error(`${what} is not text`);
  return value;
}

/** A cheap deterministic spread of history requests over customers (no two runs differ). */
function customerOf(k: number, customers: number): number {
  return Number((BigInt(k) * 2654435761n + 12345n) % BigInt(customers));
}

async function withoutIndexes(bulk: Bulk, tables: string[], log: (line: string) => void, fill: () => Promise<void>): Promise<void> {
  const ddl: string[] = [];
  for (const table of tables) ddl.push(...(await bulk.dropIndexes(table)));
  await fill();
  const started = Date.now();
  // Building an index once over the full table is far cheaper than maintaining it row by row.
  for (const statement of ddl) await bulk.exec(statement);
  log(`  rebuilt ${ddl.length} indexes in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

export async function seedBulk(bulk: Bulk, fixtures: Fixtures, capture: TemplateCapture, scale: Scale, log: (line: string) => void): Promise<SeedReport> {
  const started = Date.now();
  const campaign = one(await bulk.query('select * from campaigns where id = ?', [fixtures.coupon.campaignId]), 'coupon campaign');
  const projectId = str(campaign.project_id, 'project_id');
  const project = one(await bulk.query('select case_sensitive_codes from projects where id = ?', [projectId]), 'project');
  const caseSensitive = Boolean(project.case_sensitive_codes);
  const template = JSON.parse(str(campaign.voucher_template, 'voucher_template')) as VoucherTemplate;

  const tCustomer = one(await bulk.query('select * from customers where project_id = ? and source_id = ?', [projectId, capture.customerSourceId]), 'template customer');
  const tCustomerId = str(tCustomer.id, 'customer id');
  const tVoucher = one(await bulk.query('select * from vouchers where project_id = ? and code = ?', [projectId, fixtures.coupon.templateCode]), 'template voucher');
  const tRedemptions = await bulk.query('select * from redemptions where project_id = ? and customer_id = ? order by id', [projectId, tCustomerId]);
  const tSnapshots = await bulk.query(
    'select * from redemption_snapshots where project_id = ? and redemption_id in (select id from redemptions where project_id = ? and customer_id = ?) order by redemption_id',
    [projectId, projectId, tCustomerId],
  );
  const tOrder = one(await bulk.query('select * from orders where project_id = ? and customer_id = ?', [projectId, tCustomerId]), 'template order');
  const tTier = one(
    await bulk.query(
      'select coalesce(sum(redeemed), 0) as redeemed, coalesce(sum(orders_amount), 0) as orders_amount, coalesce(sum(discount_amount), 0) as discount_amount from promotion_tier_counts where tier_id = ?',
      [fixtures.promotion.tierId],
    ),
    'tier summary',
  );
  const parent = tRedemptions.find((r) => r.parent_id === null);
  const children = tRedemptions.filter((r) => r.parent_id !== null);
  if (!parent || children.length !== 2) throw new Error(`template redemption has ${tRedemptions.length} records, expected a parent and 2 children`);
  const redemptionAtMs = Date.parse(str(parent.created_at, 'redemption created_at'));
  const tVoucherCreatedAt = str(tVoucher.created_at, 'voucher created_at');

  const requests = Math.max(0, Math.floor(scale.redemptions / tRedemptions.length));
  const couponCount = Math.max(scale.vouchers - 1, requests);
  const historyStartMs = redemptionAtMs - HISTORY_DAYS * DAY_MS;
  const stepMs = requests > 0 ? Math.floor((HISTORY_DAYS * DAY_MS) / (requests + 1)) : 0;
  const customersStartMs = historyStartMs - scale.customers * 1000 - 60_000;
  const vouchersAtMs = customersStartMs - 3_600_000;

  // Who redeemed what: counters per customer follow from the assignment.
  const perCustomer = new Uint32Array(scale.customers);
  const lastRequest = new Int32Array(scale.customers).fill(-1);
  for (let k = 0; k < requests; k++) {
    const c = customerOf(k, scale.customers);
    perCustomer[c] = (perCustomer[c] ?? 0) + 1;
    lastRequest[c] = k;
  }
  const historyAt = (k: number) => historyStartMs + (k + 1) * stepMs;

  // ---- customers ----
  const customerIds: string[] = new Array<string>(scale.customers);
  const customerIdMaker = new IdMaker();
  const orderDate = (k: number) => new Date(Date.parse(str(tOrder.created_at, 'order created_at')) + (historyAt(k) - redemptionAtMs)).toISOString();
  await withoutIndexes(bulk, ['customers'], log, async () => {
    let batch: Row[] = [];
    for (let i = 0; i < scale.customers; i++) {
      const at = customersStartMs + i * 1000;
      const id = customerIdMaker.next('cust', at);
      customerIds[i] = id;
      const n = perCustomer[i] ?? 0;
      const city = CITIES[i % CITIES.length] ?? 'Berlin';
      const last = lastRequest[i] ?? -1;
      batch.push({
        ...tCustomer,
        id,
        source_id: customerSourceId(i),
        name: `Customer ${i}`,
        email: `customer${i}@bench.example`,
        address: str(tCustomer.address, 'address').replace(`"${TEMPLATE_CUSTOMER.city}"`, JSON.stringify(city)),
        address_city: city,
        metadata: JSON.stringify({ segment: i % 3 === 0 ? 'a' : 'b' }),
        redemptions_total_redeemed: n * num(tCustomer.redemptions_total_redeemed),
        redemptions_total_succeeded: n * num(tCustomer.redemptions_total_succeeded),
        redemptions_total_failed: 0,
        orders_total_amount: n * num(tCustomer.orders_total_amount),
        orders_total_count: n * num(tCustomer.orders_total_count),
        orders_last_order_amount: n > 0 ? num(tCustomer.orders_last_order_amount) : null,
        orders_last_order_date: last >= 0 ? orderDate(last) : null,
        created_at: new Date(at).toISOString(),
        updated_at: null,
      });
      if (batch.length >= BATCH) {
        await bulk.insert('customers', batch);
        batch = [];
      }
    }
    await bulk.insert('customers', batch);
  });
  log(`  customers: ${scale.customers} (${((Date.now() - started) / 1000).toFixed(1)} s)`);

  // ---- coupon codes ----
  const taken = new Set<string>([codeKeyOf(fixtures.coupon.templateCode, caseSensitive)]);
  const voucherIdMaker = new IdMaker();
  const vouchersAt = new Date(vouchersAtMs).toISOString();
  const redeemedVouchers: Array<{ id: string; code: string }> = new Array(requests);
  const source = { projectId, campaignId: fixtures.coupon.campaignId, campaignCategoryId: (campaign.category_id as string | null) ?? null, template, overrides: {} };
  const voucherStarted = Date.now();
  await withoutIndexes(bulk, ['vouchers'], log, async () => {
    let made = 0;
    while (made < couponCount) {
      const want = Math.min(BATCH, couponCount - made);
      const batch: Row[] = [];
      for (const code of generateCodes(template.code_config, want + 64)) {
        const key = codeKeyOf(code, caseSensitive);
        if (taken.has(key)) continue;
        taken.add(key);
        const ids = { next: (prefix: string) => voucherIdMaker.next(prefix, vouchersAtMs) };
        const row = voucherRow({ ids }, source, code, key, vouchersAt) as Row;
        const index = made + batch.length;
        const redeemed = index < requests;
        row.redeemed_quantity = redeemed ? 1 : 0;
        // A used coupon was last changed by its redemption (useVoucherOnce stamps updated_at).
        row.updated_at = redeemed ? new Date(Date.parse(str(tVoucher.updated_at, 'voucher updated_at')) + (historyAt(index) - redemptionAtMs)).toISOString() : null;
        if (redeemed) redeemedVouchers[index] = { id: str(row.id, 'voucher id'), code };
        batch.push(row);
        if (batch.length === want) break;
      }
      await bulk.insert('vouchers', batch);
      made += batch.length;
    }
  });
  await bulk.query('update campaigns set vouchers_count = vouchers_count + ? where id = ?', [couponCount, fixtures.coupon.campaignId]);
  log(`  coupon codes: ${couponCount} (${((Date.now() - voucherStarted) / 1000).toFixed(1)} s)`);

  // ---- redemption history ----
  const tokens = [
    str(parent.id, 'parent id'),
    ...children.map((c) => str(c.id, 'child id')),
    str(tOrder.id, 'order id'),
    str(tVoucher.id, 'voucher id'),
    fixtures.coupon.templateCode,
    tCustomerId,
    capture.customerSourceId,
    TEMPLATE_CUSTOMER.name,
    TEMPLATE_CUSTOMER.email,
    tVoucherCreatedAt,
  ];
  const redemptionTemplates = tRedemptions.map((row) => new RowTemplate(row, tokens, capture.requestStartMs));
  const snapshotTemplates = tSnapshots.map((row) => new RowTemplate(row, tokens, capture.requestStartMs));
  const orderTemplate = new RowTemplate(tOrder, tokens, capture.requestStartMs);
  const historyStarted = Date.now();
  const redemptionIds = new IdMaker();
  const orderIds = new IdMaker();
  await withoutIndexes(bulk, ['redemptions', 'redemption_snapshots', 'orders'], log, async () => {
    let redemptionBatch: Row[] = [];
    let snapshotBatch: Row[] = [];
    let orderBatch: Row[] = [];
    for (let k = 0; k < requests; k++) {
      const at = historyAt(k);
      const c = customerOf(k, scale.customers);
      const voucher = redeemedVouchers[k];
      if (!voucher) throw new Error(`no coupon for history request ${k}`);
      const values = new Map<string, string>();
      // Ids in the template's own order: parent first, then the children, as the engine draws them.
      values.set(str(parent.id, 'parent id'), redemptionIds.next('r', at));
      for (const child of children) values.set(str(child.id, 'child id'), redemptionIds.next('r', at));
      values.set(str(tOrder.id, 'order id'), orderIds.next('ord', at));
      values.set(str(tVoucher.id, 'voucher id'), voucher.id);
      values.set(fixtures.coupon.templateCode, voucher.code);
      values.set(tCustomerId, customerIds[c] ?? '');
      values.set(capture.customerSourceId, customerSourceId(c));
      values.set(TEMPLATE_CUSTOMER.name, `Customer ${c}`);
      values.set(TEMPLATE_CUSTOMER.email, `customer${c}@bench.example`);
      values.set(tVoucherCreatedAt, vouchersAt);
      const clone = { tokens: values, shiftMs: at - redemptionAtMs };
      for (const t of redemptionTemplates) redemptionBatch.push(t.render(clone));
      for (const t of snapshotTemplates) snapshotBatch.push(t.render(clone));
      orderBatch.push(orderTemplate.render(clone));
      if (redemptionBatch.length >= BATCH) {
        await bulk.insert('redemptions', redemptionBatch);
        await bulk.insert('redemption_snapshots', snapshotBatch);
        await bulk.insert('orders', orderBatch);
        redemptionBatch = [];
        snapshotBatch = [];
        orderBatch = [];
      }
    }
    await bulk.insert('redemptions', redemptionBatch);
    await bulk.insert('redemption_snapshots', snapshotBatch);
    await bulk.insert('orders', orderBatch);
  });
  // The tier's summary (migration 0030) grows by the template's share per cloned request, in shard 0.
  await bulk.query(
    `insert into promotion_tier_counts (project_id, tier_id, shard, redeemed, orders_amount, discount_amount) values (?, ?, 0, ?, ?, ?)
      on conflict (project_id, tier_id, shard) do update set redeemed = promotion_tier_counts.redeemed + excluded.redeemed,
        orders_amount = promotion_tier_counts.orders_amount + excluded.orders_amount, discount_amount = promotion_tier_counts.discount_amount + excluded.discount_amount`,
    [projectId, fixtures.promotion.tierId, requests * num(tTier.redeemed), requests * num(tTier.orders_amount), requests * num(tTier.discount_amount)],
  );
  log(`  redemption history: ${requests} stacked requests = ${requests * tRedemptions.length} records + ${requests} orders (${((Date.now() - historyStarted) / 1000).toFixed(1)} s)`);
  // The list totals the engine keeps as it writes records (migration 0025), recounted as that migration does.
  await bulk.query('delete from redemption_counts where project_id = ?', [projectId]);
  await bulk.query(
    `insert into redemption_counts (project_id, campaign_name, result, shard, n)
      select project_id, coalesce(campaign_name, ''), result, 0, count(*) from redemptions where project_id = ?
      group by project_id, coalesce(campaign_name, ''), result`,
    [projectId],
  );

  if (bulk.dialect === 'postgres') {
    // What autovacuum would have done on a database that grew over months: planner statistics and the
    // visibility map (index-only scans).
    const vacuumStarted = Date.now();
    for (const table of ['vouchers', 'customers', 'redemptions', 'redemption_snapshots', 'redemption_counts', 'orders', 'campaigns', 'promotion_tiers', 'promotion_tier_counts', 'voucher_transactions', 'loyalty_buckets', 'events']) {
      await bulk.exec(`vacuum analyze ${table}`);
    }
    log(`  vacuum analyze: ${((Date.now() - vacuumStarted) / 1000).toFixed(1)} s`);
  }

  return {
    projectId,
    historyRequests: requests,
    redemptionRows: requests * tRedemptions.length + tRedemptions.length,
    orderRows: requests + 1,
    voucherRows: couponCount + 1,
    customerRows: scale.customers,
    seconds: (Date.now() - started) / 1000,
  };
}

/** The invariants the seeded data must keep (counters agree with the rows they count, balances with the ledger). */
export async function checkInvariants(bulk: Bulk, fixtures: Fixtures, projectId: string): Promise<string[]> {
  const problems: string[] = [];
  const value = async (sql: string, params: Cell[] = []) => num(Object.values(one(await bulk.query(sql, params), sql))[0]);
  const campaignCount = await value('select vouchers_count from campaigns where id = ?', [fixtures.coupon.campaignId]);
  const voucherRows = await value('select count(*) from vouchers where project_id = ? and campaign_id = ? and binned_at is null', [projectId, fixtures.coupon.campaignId]);
  if (campaignCount !== voucherRows) problems.push(`campaign ${COUPON_CAMPAIGN} counts ${campaignCount} vouchers but has ${voucherRows}`);
  const used = await value('select coalesce(sum(redeemed_quantity), 0) from vouchers where project_id = ? and campaign_id = ?', [projectId, fixtures.coupon.campaignId]);
  const voucherRecords = await value("select count(*) from redemptions where project_id = ? and related_object_type = 'voucher' and result = 'SUCCESS' and campaign_id = ?", [projectId, fixtures.coupon.campaignId]);
  if (used !== voucherRecords) problems.push(`coupons show ${used} uses but ${voucherRecords} redemption records`);
  const tierCount = await value('select coalesce(sum(redeemed), 0) from promotion_tier_counts where tier_id = ?', [fixtures.promotion.tierId]);
  const tierRecords = await value("select count(*) from redemptions where project_id = ? and related_object_id = ? and result = 'SUCCESS'", [projectId, fixtures.promotion.tierId]);
  if (tierCount !== tierRecords) problems.push(`tier summary counts ${tierCount} but ${tierRecords} records exist`);
  const customerTotal = await value('select coalesce(sum(redemptions_total_succeeded), 0) from customers where project_id = ?', [projectId]);
  const childRecords = await value("select count(*) from redemptions where project_id = ? and result = 'SUCCESS' and related_object_type <> 'redemption' and customer_id is not null", [projectId]);
  if (customerTotal !== childRecords) problems.push(`customers count ${customerTotal} succeeded redemptions, records say ${childRecords}`);
  const orderTotal = await value('select coalesce(sum(orders_total_count), 0) from customers where project_id = ?', [projectId]);
  const orders = await value("select count(*) from orders where project_id = ? and status = 'PAID' and customer_id is not null", [projectId]);
  if (orderTotal !== orders) problems.push(`customers count ${orderTotal} paid orders, ${orders} exist`);
  const countedRecords = await value('select coalesce(sum(n), 0) from redemption_counts where project_id = ?', [projectId]);
  const records = await value('select count(*) from redemptions where project_id = ?', [projectId]);
  if (countedRecords !== records) problems.push(`redemption_counts add up to ${countedRecords}, ${records} records exist`);
  // The list totals kept by triggers (migration 0038) count the rows the seeder wrote too.
  const countedVouchers = await value('select coalesce(sum(n), 0) from voucher_counts where project_id = ?', [projectId]);
  const liveVouchers = await value('select count(*) from vouchers where project_id = ? and binned_at is null', [projectId]);
  if (countedVouchers !== liveVouchers) problems.push(`voucher_counts add up to ${countedVouchers}, ${liveVouchers} live vouchers exist`);
  const countedCustomers = await value('select coalesce(sum(n), 0) from customer_counts where project_id = ?', [projectId]);
  const liveCustomers = await value('select count(*) from customers where project_id = ? and deleted_at is null', [projectId]);
  if (countedCustomers !== liveCustomers) problems.push(`customer_counts add up to ${countedCustomers}, ${liveCustomers} live customers exist`);
  const balances = await value("select coalesce(sum(loyalty_balance), 0) from vouchers where project_id = ? and type = 'LOYALTY_CARD'", [projectId]);
  const ledger = await value('select coalesce(sum(amount), 0) from voucher_transactions where project_id = ?', [projectId]);
  if (balances !== ledger) problems.push(`loyalty balances sum to ${balances}, the ledger to ${ledger}`);
  const orphans = await value('select count(*) from vouchers where project_id <> ?', [projectId]);
  if (orphans !== 0) problems.push(`${orphans} vouchers belong to another project`);
  return problems;
}
