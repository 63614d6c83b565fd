import type { FastifyBaseLogger } from 'fastify';
import { randomString } from '../lib/ids.ts';
import { jobDuration, jobRuns } from '../lib/metrics.ts';
import { yieldToRequests } from '../lib/slices.ts';
import { inTransaction, type Deps } from '../services/context.ts';
import type { Tx } from '../store/db.ts';
import { purgeIdempotencyKeys } from '../store/idempotency.ts';
import { checkpointJob, claimNextJob, extendLease, hasClaimableJob, finishJob, releaseJob, retryJobLater, toJob, type Job } from '../store/jobs.ts';
import { purgeDeadTokens } from '../store/oauth-tokens.ts';

// The background worker: claims job rows written by requests, runs the handler of their kind, records
// the outcome, and does periodic housekeeping. Several workers (processes) can run against one
// PostgreSQL database; each job is run by one of them at a time.

export interface JobContext {
  deps: Deps;
  log: FastifyBaseLogger;
  /** Records progress (0-100) and keeps the claim alive during long work. */
  progress(percent: number): Promise<void>;
  /**
   * Inside the transaction of one slice of work: stores the job's partial result (what a resumed attempt
   * starts from) and its progress, and renews the claim. Throws LostClaimError when the claim ran out and
   * another worker took the job over, so the slice rolls back instead of being done twice.
   */
  checkpoint(tx: Tx, result: unknown, percent: number): Promise<void>;
}

export type JobHandler = (job: Job, ctx: JobContext) => Promise<unknown>;

/** Runs once when a job has failed for good, e.g. to mark what it was building as FAILED. */
export type JobFailureHandler = (job: Job, ctx: JobContext, error: unknown) => Promise<void>;

/** A handler error that must not be retried (bad input); the job fails at once. */
export class PermanentJobError extends Error {}

/** This worker's claim on a job ran out and another worker holds it now; this attempt must stop. */
export class LostClaimError extends Error {
  constructor(jobId: string) {
    super(`job ${jobId} was taken over by another worker`);
  }
}

/**
 * The worker is stopping (the process shuts down): the job in hand stops at its next progress report or
 * checkpoint, that slice rolls back, and the job goes back to the queue for the next worker, without
 * counting the attempt.
 */
export class WorkerStoppingError extends Error {
  constructor(jobId: string) {
    super(`job ${jobId} interrupted: the worker is stopping`);
  }
}

/** Work repeated on a schedule rather than queued as rows (points expiry, pending points activation). */
export type PeriodicTask = (ctx: { deps: Deps; log: FastifyBaseLogger }) => Promise<void>;

interface PeriodicEntry {
  everyMs: number;
  task: PeriodicTask;
  /** Clock time (ms) from which the task is due again; 0 = due at the first chance. */
  dueAt: number;
}

const LEASE_MS = 5 * 60_000;
const MAX_ATTEMPTS = 5;
const IDLE_POLL_MS = 250;
const HOUSEKEEPING_EVERY_MS = 60_000;
const IDEMPOTENCY_RETENTION_MS = 24 * 3600_000;
const DEAD_TOKEN_RETENTION_MS = 24 * 3600_000;

export class Worker {
  readonly id = `w-${randomString(12)}`;
  readonly #deps: Deps;
  readonly #log: FastifyBaseLogger;
  readonly #handlers = new Map<string, JobHandler>();
  readonly #failureHandlers = new Map<string, JobFailureHandler>();
  #running = false;
  #stopping = false;
  #loop: Promise<void> | null = null;
  #wake: (() => void) | null = null;
  #lastHousekeeping = 0;
  readonly #periodic = new Map<string, PeriodicEntry>();

  constructor(deps: Deps, log: FastifyBaseLogger) {
    this.#deps = deps;
    this.#log = log;
  }

  register(kind: string, handler: JobHandler, onFailed?: JobFailureHandler): this {
    this.#handlers.set(kind, handler);
    if (onFailed) this.#failureHandlers.set(kind, onFailed);
    return this;
  }

  /**
   * Runs `task` every `everyMs` of `deps.clock` time. Timing follows the injected clock, so tests move the
   * clock and call runPeriodic(). A task must be safe to run in several processes at once.
   */
  every(name: string, everyMs: number, task: PeriodicTask): this {
    this.#periodic.set(name, { everyMs, task, dueAt: 0 });
    return this;
  }

  /**
   * Runs the periodic tasks that are due by the clock (all of them with `force`), one after another. A
   * failing task is logged and tried again at its next turn; it never stops the others or the loop.
   */
  async runPeriodic(options: { force?: boolean } = {}): Promise<void> {
    for (const [name, entry] of this.#periodic) {
      const now = this.#deps.clock.now().getTime();
      if (!options.force && now < entry.dueAt) continue;
      entry.dueAt = now + entry.everyMs;
      try {
        await entry.task({ deps: this.#deps, log: this.#log.child({ periodic_task: name }) });
      } catch (error) {
        this.#log.error({ err: error, periodic_task: name }, 'periodic task failed');
      }
    }
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#stopping = false;
    this.#loop = this.#run();
  }

  /**
   * Stops: the job in hand ends at its next progress report or checkpoint and is released for another
   * worker (a job that reports none runs to its end); webhook attempts under way finish and are recorded.
   */
  async stop(): Promise<void> {
    this.#stopping = true;
    this.#running = false;
    this.#wake?.();
    await this.#loop;
    this.#loop = null;
  }

  /** Wakes an idle worker at once (a request just enqueued work in this process). */
  nudge(): void {
    this.#wake?.();
  }

  /** Runs one due job if there is one; returns whether it did. Tests drive the worker through this. */
  async runOnce(): Promise<boolean> {
    const now = this.#deps.clock.now();
    if (!(await hasClaimableJob(this.#deps.db, now.toISOString(), [...this.#handlers.keys()]))) return false;
    const row = await inTransaction(this.#deps, (tx) =>
      claimNextJob(
        tx,
        this.#deps.dialect,
        this.id,
        now.toISOString(),
        new Date(now.getTime() + LEASE_MS).toISOString(),
        [...this.#handlers.keys()],
      ),
    );
    if (!row) return false;
    const job = toJob(row);
    const handler = this.#handlers.get(job.kind);
    if (!handler) return false;
    const percentOf = (percent: number) => Math.max(0, Math.min(99, Math.round(percent)));
    const ctx: JobContext = {
      deps: this.#deps,
      log: this.#log.child({ job_id: job.id, job_kind: job.kind }),
      progress: async (percent) => {
        if (this.#stopping) throw new WorkerStoppingError(job.id);
        const at = this.#deps.clock.now().getTime();
        await extendLease(this.#deps.db, job.id, this.id, new Date(at + LEASE_MS).toISOString(), percentOf(percent));
      },
      checkpoint: async (tx, result, percent) => {
        if (this.#stopping) throw new WorkerStoppingError(job.id);
        const at = this.#deps.clock.now();
        const held = await checkpointJob(tx, {
          id: job.id,
          workerId: this.id,
          result,
          progress: percentOf(percent),
          leaseUntil: new Date(at.getTime() + LEASE_MS).toISOString(),
          at: at.toISOString(),
        });
        if (!held) throw new LostClaimError(job.id);
      },
    };
    const startedAt = performance.now();
    const finished = (outcome: string) => {
      jobRuns.inc({ kind: job.kind, outcome });
      jobDuration.observe({ kind: job.kind }, (performance.now() - startedAt) / 1000);
      return { attempt: job.attempts, duration_ms: Math.round(performance.now() - startedAt), outcome };
    };
    ctx.log.info({ attempt: job.attempts }, 'job started');
    try {
      const result = await handler(job, ctx);
      await finishJob(this.#deps.db, job.id, this.id, { status: 'DONE', result: result ?? null, error: null, now: this.#deps.clock.now().toISOString() });
      ctx.log.info(finished('done'), 'job done');
    } catch (error) {
      if (error instanceof LostClaimError) {
        // The worker holding the job now carries on from the last slice this one committed.
        ctx.log.warn({ err: error, ...finished('taken_over') }, 'job taken over by another worker; this attempt stops');
        return true;
      }
      const at = this.#deps.clock.now();
      if (error instanceof WorkerStoppingError) {
        await releaseJob(this.#deps.db, job.id, this.id, at.toISOString());
        ctx.log.info(finished('released'), 'job released for another worker: this one is stopping');
        return true;
      }
      const message = error instanceof Error ? error.message : String(error);
      if (error instanceof PermanentJobError || job.attempts >= MAX_ATTEMPTS) {
        ctx.log.error({ err: error, ...finished('failed') }, 'job failed');
        await finishJob(this.#deps.db, job.id, this.id, { status: 'FAILED', result: job.result, error: message, now: at.toISOString() });
        const onFailed = this.#failureHandlers.get(job.kind);
        if (onFailed) {
          await onFailed(job, ctx, error).catch((failure: unknown) => ctx.log.error({ err: failure }, 'job failure handler failed'));
        }
      } else {
        const delayMs = 1000 * 2 ** job.attempts;
        ctx.log.warn({ err: error, retry_in_ms: delayMs, ...finished('retry') }, 'job attempt failed; will retry');
        await retryJobLater(this.#deps.db, job.id, this.id, new Date(at.getTime() + delayMs).toISOString(), message, at.toISOString());
      }
    }
    return true;
  }

  /** Deletes records nobody can use any more: old idempotency answers, long-dead OAuth tokens. */
  async housekeeping(): Promise<void> {
    const now = this.#deps.clock.now().getTime();
    await purgeIdempotencyKeys(this.#deps.db, new Date(now - IDEMPOTENCY_RETENTION_MS).toISOString());
    await purgeDeadTokens(this.#deps.db, new Date(now - DEAD_TOKEN_RETENTION_MS).toISOString());
  }

  async #run(): Promise<void> {
    while (this.#running) {
      let didWork = false;
      try {
        if (Date.now() - this.#lastHousekeeping >= HOUSEKEEPING_EVERY_MS) {
          this.#lastHousekeeping = Date.now();
          await this.housekeeping();
        }
        await this.runPeriodic();
        didWork = await this.runOnce();
      } catch (error) {
        this.#log.error({ err: error }, 'worker loop error');
      }
      // Back-to-back jobs and tasks must not keep requests waiting either (src/lib/slices.ts).
      if (didWork) await yieldToRequests();
      if (!didWork && this.#running) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, IDLE_POLL_MS);
          this.#wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.#wake = null;
      }
    }
  }
}
