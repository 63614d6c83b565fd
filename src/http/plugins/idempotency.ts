import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { domainError } from '../../domain/errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { holdRequestTransaction, type RequestTransaction } from '../../store/connection-scope.ts';
import type { Db } from '../../store/db.ts';
import { findIdempotencyAnswer, lockIdempotencyKey, saveIdempotencyAnswer } from '../../store/idempotency.ts';
import { sendError } from './errors.ts';

// `Idempotency-Key` on POST (ARCHITECTURE "Concurrency rules"): the first answer to a key is stored and
// replayed for the same request; the same key with a different request is 409, and so is a second
// request while the first is still running.
//
// Exactly once, also across a crash: a keyed request runs inside one request transaction
// (src/store/connection-scope.ts) that its services' transactions join as savepoints. Its answer is
// written into that transaction and committed together with the change and its events. A crash before
// the commit leaves neither the change nor the key; after it, both. A 5xx answer rolls everything back, so
// the client may simply retry. While a request runs, its key is held by the transaction itself (the
// database's write lock on SQLite, an advisory lock on PostgreSQL), which dies with its connection.
//
// Answers that carry secrets (an OAuth token, a new project's keys: routes marked `secretAnswer`) are
// never stored: the key is recorded as carried out, and a retry gets 409 `idempotency_answer_withheld`
// instead of a second token or project.

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The success answer carries secrets: never store it for an Idempotency-Key. */
    secretAnswer?: boolean;
    /**
     * The handler streams a large body (a CSV upload) into the database as it arrives. Such a request
     * cannot run inside one request transaction (on SQLite it would hold the only writer for the whole
     * upload), and its body is not kept to compare a retry with: Idempotency-Key is not honoured.
     */
    streamedBody?: boolean;
  }
  interface FastifyRequest {
    idempotency: { scope: string; key: string; hash: string; transaction: RequestTransaction } | null;
    /** Set by a credential other than the API's (a customer's cockpit link): the keys' scope for it. */
    idempotencyScope: string | null;
  }
}

function requestHash(request: FastifyRequest): string {
  return createHash('sha256')
    .update(`${request.method} ${request.url}\n`)
    .update(JSON.stringify(request.body ?? null))
    .digest('hex');
}

function scopeOf(request: FastifyRequest): string | null {
  if (request.idempotencyScope) return request.idempotencyScope;
  const principal = request.principal;
  if (!principal) return null;
  return principal.kind === 'management' ? 'management' : principal.projectId;
}

const inProgress = (key: string) =>
  domainError('idempotency_request_in_progress', { details: `A request with Idempotency-Key ${key} is still being processed` });

/** What a keyed request does next: run in its transaction, run without one, or nothing (it was answered). */
type Start = { transaction: RequestTransaction } | 'plain' | 'answered';

/** Opens the request transaction of a keyed request, or answers at once: a replay, a 409. */
async function begin(db: Db, request: FastifyRequest, reply: FastifyReply): Promise<Start> {
  if (request.method !== 'POST' || request.routeOptions.config.streamedBody === true) return 'plain';
  const raw = request.headers['idempotency-key'];
  if (raw === undefined) return 'plain';
  const key = Array.isArray(raw) ? raw[0] : raw;
  const scope = scopeOf(request);
  if (scope === null || key === undefined) return 'plain';
  if (!KEY_PATTERN.test(key)) {
    sendError(reply, domainError('invalid_payload', { details: 'Idempotency-Key must be 1-255 visible ASCII characters' }));
    return 'answered';
  }
  const hash = requestHash(request);
  const transaction = await holdRequestTransaction(db);
  let keep = false;
  try {
    const outcome = await transaction.run(async () => {
      if (!(await lockIdempotencyKey(db, scope, key))) return 'busy' as const;
      return (await findIdempotencyAnswer(db, scope, key)) ?? null;
    });
    if (outcome === 'busy') {
      sendError(reply, inProgress(key));
    } else if (outcome === null) {
      request.idempotency = { scope, key, hash, transaction };
      keep = true;
      return { transaction };
    } else if (outcome.requestHash !== hash) {
      sendError(reply, domainError('idempotency_key_reused', { details: `Idempotency-Key ${key} was used for a different request` }));
    } else if (outcome.state === 'withheld') {
      sendError(
        reply,
        domainError('idempotency_answer_withheld', {
          details: `The request with Idempotency-Key ${key} was carried out; its answer held secrets, which are never stored, so it cannot be replayed`,
        }),
      );
    } else {
      reply.header('Idempotent-Replayed', 'true');
      if (outcome.contentType) reply.type(outcome.contentType);
      reply.code(outcome.status).send(outcome.body ?? '');
    }
    return 'answered';
  } finally {
    if (!keep) await transaction.rollback();
  }
}

/** Stores the answer in the request transaction and commits; anything that cannot be stored rolls back. */
async function finish(db: Db, clock: Clock, request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<void> {
  const claim = request.idempotency;
  if (!claim) return;
  request.idempotency = null;
  const { transaction } = claim;
  // A 5xx, or a streamed answer that cannot be stored: undo the change too, so a retry starts afresh.
  if (reply.statusCode >= 500 || (typeof payload !== 'string' && payload !== null && payload !== undefined)) {
    await transaction.rollback();
    return;
  }
  const withheld = reply.statusCode < 400 && request.routeOptions.config.secretAnswer === true;
  const contentType = reply.getHeader('content-type');
  try {
    await transaction.run(() =>
      saveIdempotencyAnswer(db, claim.scope, claim.key, {
        requestHash: claim.hash,
        state: withheld ? 'withheld' : 'done',
        status: reply.statusCode,
        body: withheld ? null : typeof payload === 'string' ? payload : '',
        contentType: withheld || typeof contentType !== 'string' ? null : contentType,
        createdAt: clock.now().toISOString(),
      }),
    );
    await transaction.commit();
  } finally {
    // Anything that failed above leaves the transaction open; the change goes with it (the error answers 500).
    await transaction.rollback();
  }
}

export function installIdempotency(app: FastifyInstance, db: Db, clock: Clock): void {
  app.decorateRequest('idempotency', null);
  app.decorateRequest('idempotencyScope', null);

  // Callback style, so that the rest of the request (the handler above all) runs inside the transaction's
  // scope: `done` is called from within it.
  app.addHook('preHandler', (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    begin(db, request, reply).then(
      (start) => {
        if (start === 'plain') done();
        else if (start !== 'answered') start.transaction.run(() => done());
      },
      (error: unknown) => done(error as Error),
    );
  });

  app.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    await finish(db, clock, request, reply, payload);
    return payload;
  });

  // A request that ends without an answer being sent (the client went away before it): nothing commits.
  app.addHook('onResponse', async (request: FastifyRequest) => {
    const claim = request.idempotency;
    if (!claim) return;
    request.idempotency = null;
    await claim.transaction.rollback();
  });
}
