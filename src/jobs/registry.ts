import type { FastifyBaseLogger } from 'fastify';
import type { Deps } from '../services/context.ts';
import { registerCampaignVoucherJobs } from './campaign-vouchers.ts';
import { Worker } from './worker.ts';

/** A worker that knows every job kind of the application; `punchcard start|worker` and tests use it. */
export function createWorker(deps: Deps, log: FastifyBaseLogger): Worker {
  const worker = new Worker(deps, log);
  registerCampaignVoucherJobs(worker);
  return worker;
}
