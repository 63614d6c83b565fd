import type { FastifyBaseLogger } from 'fastify';
import type { Deps } from '../services/context.ts';
import { registerBulkJobs } from './bulk.ts';
import { registerCampaignVoucherJobs } from './campaign-vouchers.ts';
import { registerCsvImportJobs } from './csv-imports.ts';
import { registerExportJobs } from './exports.ts';
import { registerLoyaltyPointsSchedule } from './loyalty-points.ts';
import { registerLoyaltyTierJobs } from './loyalty-tiers.ts';
import { registerSessionPurge } from './redemption-sessions.ts';
import { registerSegmentJobs } from './segment-sync.ts';
import { registerVoucherImportJobs } from './voucher-imports.ts';
import { registerWebhookTasks } from './webhooks.ts';
import { Worker } from './worker.ts';

/** A worker that knows every job kind of the application; `punchcard start|worker` and tests use it. */
export function createWorker(deps: Deps, log: FastifyBaseLogger): Worker {
  const worker = new Worker(deps, log);
  registerCampaignVoucherJobs(worker);
  registerLoyaltyPointsSchedule(worker);
  registerLoyaltyTierJobs(worker);
  registerVoucherImportJobs(worker);
  registerWebhookTasks(worker);
  registerBulkJobs(worker);
  registerCsvImportJobs(worker);
  registerSegmentJobs(worker);
  registerExportJobs(worker);
  registerSessionPurge(worker);
  return worker;
}
