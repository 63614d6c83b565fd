import { readFile } from 'node:fs/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { domainError, errors } from '../../../domain/errors.ts';
import { FixedWindowLimiter } from '../../../lib/rate-limiter.ts';
import { readCockpitToken, type CockpitHolder } from '../../../services/cockpit/links.ts';
import * as cockpit from '../../../services/cockpit/wallet.ts';
import { findLiveCustomerById } from '../../../store/customers.ts';
import type { RouteContext, TypedApp } from '../../route-context.ts';
import { errorResponses } from '../../../api/common.ts';
import { CustomerConsentsBody } from '../../../api/consents.ts';
import { WEB_DIST } from '../console/assets.ts';

// The customer cockpit: the page (web/, second entry `cockpit.html`, at /cockpit and /cockpit/preferences)
// and the JSON it reads and writes (/cockpit/v1). The only credential is the customer's cockpit link: the
// page reads the token from the link's fragment and sends it as `X-Cockpit-Token`
// (src/services/cockpit/links.ts says why it is safe). Every refusal — malformed, tampered, rotated, an
// unknown or deleted customer — is the same 401, so an answer never tells whether an id exists.
//
// Rate limits, per process (README "Customer cockpit"): 120 requests a minute per client address and 60
// per customer; after 20 refused links in 10 minutes an address gets 429 until the window ends. The client
// address is the one the trusted proxies forward (src/http/client-address.ts), so behind a proxy one
// visitor's bad links do not lock out every customer.

declare module 'fastify' {
  interface FastifyRequest {
    cockpit: CockpitHolder | null;
  }
}

const tags = ['Customer cockpit'];
const TOKEN_HEADER = 'x-cockpit-token';
const MINUTE = 60_000;

// A customer's own page on the API's origin: never framed, sends no referrer (the token is in the
// fragment, which browsers do not send anyway), nothing cached. Logos may come from the merchant's CDN.
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: https:; font-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
};

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>Cockpit</title>
<p>This page is not built yet. <code>npm install</code> builds it (or run <code>npm run build:web</code>), then reload.</p>`;

const refused = () => errors.unauthorized('This link does not open a cockpit: it may be mistyped, expired, or replaced by a newer link');

const CardParams = Type.Object({ code: Type.String({ minLength: 1, maxLength: 300, description: "The code of one of the customer's loyalty cards" }) });
const RedeemBody = Type.Object({ reward_id: Type.String({ minLength: 1, maxLength: 100, description: 'rew_… (one of the card’s rewards)' }) });
const TransactionsQuery = Type.Object({ starting_after_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })) });
const Free = (description: string) => Type.Record(Type.String(), Type.Unknown(), { description });

export function registerCockpitRoutes(app: TypedApp, { deps }: RouteContext): void {
  const limiter = new FixedWindowLimiter();
  const blockedUntil = new Map<string, number>();
  app.decorateRequest('cockpit', null);

  const tooMany = (reply: FastifyReply, untilMs: number, now: number) => {
    reply.header('Retry-After', String(Math.max(1, Math.ceil((untilMs - now) / 1000))));
    return domainError('too_many_requests', { details: 'Too many cockpit requests from here; try again a little later' });
  };

  /** preValidation of every /cockpit/v1 route (a body too deep or too large is refused first, as everywhere): limits, then the link. */
  const authenticate = async (request: FastifyRequest, reply: FastifyReply) => {
    const now = deps.clock.now().getTime();
    const address = request.client.address;
    const blocked = blockedUntil.get(address);
    if (blocked !== undefined && blocked > now) throw tooMany(reply, blocked, now);
    const perAddress = limiter.hit(`ip|${address}`, [{ value: 120, windowMs: MINUTE }], now);
    if (!perAddress.allowed) throw tooMany(reply, perAddress.resetAt * 1000, now);

    const raw = request.headers[TOKEN_HEADER];
    const token = typeof raw === 'string' ? raw : undefined;
    const holder = token && token.length <= 600 ? await readCockpitToken(deps, deps.db, token) : null;
    const customer = holder ? await findLiveCustomerById(deps.db, holder.projectId, holder.customerId) : undefined;
    if (!holder || !customer) {
      const failures = limiter.hit(`fail|${address}`, [{ value: 20, windowMs: 10 * MINUTE }], now);
      if (!failures.allowed) {
        if (blockedUntil.size > 100_000) blockedUntil.clear();
        blockedUntil.set(address, failures.resetAt * 1000);
        throw tooMany(reply, failures.resetAt * 1000, now);
      }
      throw refused();
    }
    const perCustomer = limiter.hit(`customer|${holder.projectId}|${holder.customerId}`, [{ value: 60, windowMs: MINUTE }], now);
    if (!perCustomer.allowed) throw tooMany(reply, perCustomer.resetAt * 1000, now);
    request.cockpit = holder;
    // An Idempotency-Key sent with a cockpit change is the customer's own (src/http/plugins/idempotency.ts).
    request.idempotencyScope = `cockpit:${holder.projectId}:${holder.customerId}`;
  };

  /** A customer's own data: never kept by a browser, a proxy or a shared cache, whatever the answer (refusals included). */
  const noStore = async (_request: FastifyRequest, reply: FastifyReply) => {
    reply.header('cache-control', 'no-store');
  };

  const holderOf = (request: FastifyRequest): CockpitHolder => {
    if (!request.cockpit) throw new Error('cockpit route without its link check');
    return request.cockpit;
  };
  const actorOf = (request: FastifyRequest) => cockpit.cockpitActor(holderOf(request), request.id);
  const config = { auth: 'public' as const };
  const headers = Type.Object({ [TOKEN_HEADER]: Type.Optional(Type.String({ description: "The token from the customer's cockpit link (after #token=)" })) });

  // ---- the page ----

  let page: string | null = null;
  const sendPage = async (_request: unknown, reply: FastifyReply) => {
    page ??= await readFile(`${WEB_DIST}cockpit.html`, 'utf8').catch(() => null);
    reply.headers(PAGE_HEADERS).type('text/html; charset=utf-8');
    return page === null ? reply.code(503).send(NOT_BUILT) : reply.send(page);
  };
  app.get('/cockpit', { config, schema: { hide: true } }, sendPage);
  app.get('/cockpit/preferences', { config, schema: { hide: true } }, sendPage);

  // ---- the JSON the page uses ----

  app.get(
    '/cockpit/v1/wallet',
    {
      config,
      onRequest: noStore,
      preValidation: authenticate,
      schema: {
        tags,
        operationId: 'getCockpitWallet',
        summary: "The link's customer: loyalty cards (balance, pending points, next expiry, tier, rewards, history), vouchers, gift cards, referral codes, and the project's branding",
        headers,
        response: { 200: Free('brand, customer, loyalty_cards, vouchers, gift_cards, referrals'), ...errorResponses(429) },
      },
    },
    async (request) => cockpit.wallet(deps, actorOf(request), holderOf(request).customerId),
  );

  app.get(
    '/cockpit/v1/cards/:code/transactions',
    {
      config,
      onRequest: noStore,
      preValidation: authenticate,
      schema: {
        tags,
        operationId: 'listCockpitCardTransactions',
        summary: "The next page of one of the customer's loyalty card transactions (20 at a time)",
        headers,
        params: CardParams,
        querystring: TransactionsQuery,
        response: { 200: Free('data (each with points and balance_after; the oldest page ends with the card\'s OPENING_BALANCE), balance_before, has_more, more_starting_after'), ...errorResponses(404, 429) },
      },
    },
    async (request) => cockpit.ownCardTransactions(deps, actorOf(request), holderOf(request).customerId, request.params.code, request.query.starting_after_id),
  );

  app.post(
    '/cockpit/v1/cards/:code/redemption',
    {
      config,
      onRequest: noStore,
      preValidation: authenticate,
      schema: {
        tags,
        operationId: 'redeemCockpitReward',
        summary: 'Redeem a reward with one of the customer\'s loyalty cards (the loyalty reward redemption; send an Idempotency-Key per intent: a repeat is answered, not redeemed again)',
        headers,
        params: CardParams,
        body: RedeemBody,
        response: { 200: Free('id (r_…), result, reward, date'), ...errorResponses(404, 409, 429) },
      },
    },
    async (request) => cockpit.redeemOwnReward(deps, actorOf(request), holderOf(request).customerId, request.params.code, request.body.reward_id),
  );

  app.get(
    '/cockpit/v1/preferences',
    {
      config,
      onRequest: noStore,
      preValidation: authenticate,
      schema: {
        tags,
        operationId: 'getCockpitPreferences',
        summary: "The project's consents and groups with the customer's answer to each",
        headers,
        response: { 200: Free('brand, groups, consents'), ...errorResponses(429) },
      },
    },
    async (request) => cockpit.preferences(deps, actorOf(request), holderOf(request).customerId),
  );

  app.put(
    '/cockpit/v1/preferences',
    {
      config,
      onRequest: noStore,
      preValidation: authenticate,
      schema: {
        tags,
        operationId: 'updateCockpitPreferences',
        summary: 'Opt in or out: consent id → true or false, as PUT /v1/customers/{customerId}/consents (an activity and a customer.consents.updated webhook)',
        headers,
        body: CustomerConsentsBody,
        response: { 200: Free('brand, groups, consents'), ...errorResponses(404, 429) },
      },
    },
    async (request) => cockpit.changePreferences(deps, actorOf(request), holderOf(request).customerId, request.body),
  );
}
