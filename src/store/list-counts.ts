import { sql } from 'kysely';
import type { Executor } from './db.ts';
import { prepared } from './prepared.ts';

// How many live vouchers (per project, or per campaign) and live customers a project holds, for the
// `total` of their lists. Triggers keep these counts in the transaction of every change (migration 0038);
// each count is the sum of its shard rows, a few rows whatever the number of vouchers or customers.

const total = sql<number | string>`coalesce(sum(n), 0)`.as('n');

const vouchersOfProject = prepared((db, p: { projectId: string }) => db.selectFrom('voucher_counts').select(total).where('project_id', '=', p.projectId));

const vouchersOfCampaign = prepared((db, p: { projectId: string; campaignId: string }) =>
  db.selectFrom('voucher_counts').select(total).where('project_id', '=', p.projectId).where('campaign_id', '=', p.campaignId),
);

const customersOfProject = prepared((db, p: { projectId: string }) => db.selectFrom('customer_counts').select(total).where('project_id', '=', p.projectId));

/** Live vouchers of the project, or of one campaign (a campaign id, never ''). */
export async function countLiveVouchers(db: Executor, projectId: string, campaignId?: string): Promise<number> {
  const row = campaignId === undefined ? await vouchersOfProject.first(db, { projectId }) : await vouchersOfCampaign.first(db, { projectId, campaignId });
  return Number(row?.n ?? 0);
}

export async function countLiveCustomers(db: Executor, projectId: string): Promise<number> {
  return Number((await customersOfProject.first(db, { projectId }))?.n ?? 0);
}
