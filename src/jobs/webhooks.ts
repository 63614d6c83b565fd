import { Pacer } from '../lib/slices.ts';
import type { Deps } from '../services/context.ts';
import { dispatchWebhookEvents } from '../services/webhooks/dispatch.ts';
import { WebhookSender } from '../services/webhooks/delivery.ts';
import type { Worker } from './worker.ts';

// Webhook dispatch and delivery run on every turn of the worker loop (src/services/webhooks/*): the
// dispatcher turns new log events into deliveries, the sender attempts the due ones. A turn keeps going
// while there is work, within a time budget, so a backlog drains quickly without starving the job queue.

const TURN_BUDGET_MS = 1_000;
const PURGE_EVERY_MS = 3600_000;

export interface WebhookTurn {
  dispatchedEvents: number;
  attempts: number;
}

/** One turn: dispatch and send until nothing is left or the budget is spent. */
export async function runWebhookTurn(deps: Deps, sender: WebhookSender, budgetMs = TURN_BUDGET_MS): Promise<WebhookTurn> {
  const started = performance.now();
  const pacer = new Pacer();
  const turn: WebhookTurn = { dispatchedEvents: 0, attempts: 0 };
  for (;;) {
    const dispatched = await dispatchWebhookEvents(deps);
    const attempts = await sender.deliverDue();
    turn.dispatchedEvents += dispatched?.events ?? 0;
    turn.attempts += attempts;
    const moved = (dispatched?.advanced ?? false) || attempts > 0;
    if (!moved || performance.now() - started >= budgetMs) return turn;
    // A backlog (a bulk job's events) is read in slices, with requests served between them.
    await pacer.between();
  }
}

export function registerWebhookTasks(worker: Worker): void {
  let sender: WebhookSender | null = null;
  let purgeDueAt = 0;
  worker.every('webhooks', 0, async ({ deps, log }) => {
    sender ??= new WebhookSender(deps, { log });
    const turn = await runWebhookTurn(deps, sender);
    if (turn.attempts > 0) log.debug(turn, 'webhook turn');
    const now = deps.clock.now().getTime();
    if (now >= purgeDueAt) {
      purgeDueAt = now + PURGE_EVERY_MS;
      await sender.purgeOld();
    }
  });
}
