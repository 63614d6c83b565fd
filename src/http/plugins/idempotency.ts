import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { domainError } from '../../domain/errors.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Db } from '../../store/db.ts';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  findIdempotencyRecord,
  releaseIdempotencyKey,
} from '../../store/idempotency.ts';
import { sendError } from './errors.ts';

// `Idempotency-Key` on POST (ARCHITECTURE "Concurrency rules"): the first answer to a key is stored and
// replayed for the same request; the same key with a different request is 409, and so is a second
// request while the first is still running. Answers of 5xx are not stored, so the client may retry.
//
// The stored answer is written just after the change commits, not inside its transaction: a crash in
// that gap leaves the key free and a retry runs the request again.

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
/** A claim still pending after this long belongs to a request that died; the key may be taken again. */
const STALE_CLAIM_MS = 5 * 60_000;

declare module 'fastify' {
  interface FastifyRequest {
    idempotency: { scope: string; key: string } | null;
  }
}

function requestHash(request: FastifyRequest): string {
  return createHash('sha256')
    .update(`${request.method} ${request.url}\n`)
    .update(JSON.stringify(request.body ?? null))
    .digest('hex');
}

function scopeOf(request: FastifyRequest): string | null {
  const principal = request.principal;
  if (!principal) return null;
  return principal.kind === 'management' ? 'management' : principal.projectId;
}

export function installIdempotency(app: FastifyInstance, db: Db, clock: Clock): void {
  app.decorateRequest('idempotency', null);

  app.addHook('preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.method !== 'POST') return;
    const raw = request.headers['idempotency-key'];
    if (raw === undefined) return;
    const key = Array.isArray(raw) ? raw[0] : raw;
    const scope = scopeOf(request);
    if (scope === null || key === undefined) return;
    if (!KEY_PATTERN.test(key)) {
      return sendError(reply, domainError('invalid_payload', { details: 'Idempotency-Key must be 1-255 visible ASCII characters' }));
    }
    const hash = requestHash(request);
    const now = clock.now();
    for (let attempt = 0; attempt < 2; attempt++) {
      if (await claimIdempotencyKey(db, scope, key, hash, now.toISOString())) {
        request.idempotency = { scope, key };
        return;
      }
      const existing = await findIdempotencyRecord(db, scope, key);
      if (!existing) continue;
      if (existing.requestHash !== hash) {
        return sendError(
          reply,
          domainError('idempotency_key_reused', { details: `Idempotency-Key ${key} was used for a different request` }),
        );
      }
      if (existing.state === 'done' && existing.status !== null) {
        reply.header('Idempotent-Replayed', 'true');
        if (existing.contentType) reply.type(existing.contentType);
        return reply.code(existing.status).send(existing.body ?? '');
      }
      const stale = new Date(now.getTime() - STALE_CLAIM_MS).toISOString();
      if (existing.createdAt < stale) {
        await releaseIdempotencyKey(db, scope, key, stale);
        continue;
      }
      return sendError(
        reply,
        domainError('idempotency_request_in_progress', { details: `A request with Idempotency-Key ${key} is still being processed` }),
      );
    }
    return sendError(
      reply,
      domainError('idempotency_request_in_progress', { details: `A request with Idempotency-Key ${key} is still being processed` }),
    );
  });

  app.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const claim = request.idempotency;
    if (!claim) return payload;
    request.idempotency = null;
    if (reply.statusCode >= 500 || (typeof payload !== 'string' && payload !== null && payload !== undefined)) {
      await releaseIdempotencyKey(db, claim.scope, claim.key);
      return payload;
    }
    const contentType = reply.getHeader('content-type');
    await completeIdempotencyKey(db, claim.scope, claim.key, {
      status: reply.statusCode,
      body: typeof payload === 'string' ? payload : '',
      contentType: typeof contentType === 'string' ? contentType : null,
    });
    return payload;
  });
}
