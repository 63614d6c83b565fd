// What each console role may do. A signed-in console user acts on the same routes as API clients; the
// HTTP layer asks `roleAllows` with the route's pattern (`/v1/campaigns/:campaignId`) before the handler
// runs, so the rule holds for every client, not only for the buttons the console shows. The console
// session lists the registered routes this allows its role (src/http/plugins/auth.ts), and the console
// offers only those.
//
// The vendor's four predefined roles:
// - ADMIN: everything in the project, including its settings, API keys (see and rotate), webhooks, schemas
//   and team (users and roles). Organisation-wide acts (creating, listing or deleting projects) are not a
//   project role's: they stay with the management key and the organisation's owner (below).
// - USER: the day-to-day work — campaigns, vouchers, customers, loyalty, orders, products, redemptions and
//   rollbacks, exports — but not permanent deletion (GDPR erasure of customers, emptying the bin) nor the
//   project's settings, webhooks, schemas or team, which it may only read.
// - VIEWER: reads everything a USER reads and changes nothing.
// - MERCHANT: the shop counter: looks up vouchers, customers, loyalty cards, campaigns, products, orders
//   and redemptions, validates and redeems (vouchers, promotions, loyalty rewards), creates and updates
//   customers. No business figures (reports), no exports, no settings.
//
// The organisation's owner (the first admin, `users.is_owner`) may also list every project, create one and
// delete another from a console session, whatever their role in the session's project: an account's
// standing, not a role, so it is asked of `sessionAllows` beside the role. The service keeps the rules that
// need the data (never the session's own project, never the last one: src/services/projects/projects.ts).
//
// "Changes" means what the route does, not its method: a route that writes on a GET is declared a write
// where it is registered (`config.writes`, src/http/plugins/auth.ts), and is checked as one here.

export const ROLES = ['ADMIN', 'USER', 'VIEWER', 'MERCHANT'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

export const ROLE_SUMMARIES: Record<Role, string> = {
  ADMIN: 'everything in the project, including settings, webhooks, schemas and the team',
  USER: 'campaigns, vouchers, customers, loyalty, orders, redemptions and exports; reads settings',
  VIEWER: 'reads everything, changes nothing',
  MERCHANT: 'looks up vouchers, customers and loyalty cards; validates and redeems',
};

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Console self-service: the signed-in user's own session. */
const SELF_SERVICE = /^\/console\/v1\/(session|sessions|password)(\/|$)/;

/** Routes of one project under the management API (`/management/v1/projects/:projectId/…`). */
const PROJECT_MANAGEMENT = /^\/management\/v1\/projects\/:projectId(\/|$)/;

/** A project's application keys: even their ids are for ADMINs only (they open the whole API). */
const API_KEYS = /^\/management\/v1\/projects\/:projectId\/api-keys(\/|$)/;

/** Irreversible deletions reserved to ADMIN. */
const ADMIN_ONLY_V1: ReadonlyArray<readonly [string, RegExp]> = [
  ['POST', /^\/v1\/customers\/:customerId\/permanent-deletion$/],
  ['DELETE', /^\/v1\/trash-bin(\/|$)/],
];

/** What a MERCHANT may change: validating, redeeming and keeping the customer's record. */
const MERCHANT_WRITES: ReadonlyArray<readonly [string, RegExp]> = [
  ['POST', /^\/v1\/(validations|redemptions|qualifications)$/],
  ['POST', /^\/v1\/(vouchers|campaigns)\/qualification$/],
  ['POST', /^\/v1\/vouchers\/:code\/(validate|redemption)$/],
  ['POST', /^\/v1\/promotions\/validation$/],
  ['POST', /^\/v1\/promotions\/tiers\/:promotionTierId\/(validation|redemption)$/],
  ['POST', /^\/v1\/loyalties\/(:campaignId\/)?members\/:memberId\/redemption$/],
  ['POST', /^\/v1\/customers$/],
  ['PUT', /^\/v1\/customers\/:customerId$/],
];

/** What the organisation's owner may do besides their role (see the top of this file). */
const OWNER_ACTS: ReadonlyArray<readonly [string, RegExp]> = [
  ['GET', /^\/management\/v1\/projects$/],
  ['POST', /^\/management\/v1\/projects$/],
  ['DELETE', /^\/management\/v1\/projects\/:projectId$/],
];

/** What a MERCHANT may not read: bulk data and business figures. */
const MERCHANT_HIDDEN = /^\/v1\/(exports|reports)(\/|$)/;

const matches = (rules: ReadonlyArray<readonly [string, RegExp]>, method: string, route: string) =>
  rules.some(([m, pattern]) => m === method && pattern.test(route));

/** Whether a request with this method changes nothing, unless its route says otherwise (see `roleAllows`). */
export function isSafeMethod(method: string): boolean {
  return SAFE_METHODS.has(method.toUpperCase());
}

/**
 * Whether `role` may call `method route`, where `route` is the route's pattern as registered
 * (`/v1/redemptions/:redemptionId/rollback`), never the raw path, so ids cannot be crafted to match.
 * `writes` says whether the route changes stored state: by default whatever is not GET, HEAD or OPTIONS,
 * but a route that writes on a GET (the vendor's `GET /v1/publications/create`) is declared so by the HTTP
 * layer and passes true — a write is a write whatever its method.
 */
export function roleAllows(role: Role, method: string, route: string, writes = !isSafeMethod(method)): boolean {
  const verb = method.toUpperCase();
  const safe = !writes;
  if (SELF_SERVICE.test(route)) return true;

  if (route.startsWith('/management/v1/')) {
    // Organisation-wide routes: only inviting (to the session's own project, checked by the route).
    if (!PROJECT_MANAGEMENT.test(route)) return role === 'ADMIN' && verb === 'POST' && route === '/management/v1/projects/users/invite';
    if (role === 'ADMIN') return !(verb === 'DELETE' && route === '/management/v1/projects/:projectId');
    if (API_KEYS.test(route)) return false;
    return safe && (role === 'USER' || role === 'VIEWER');
  }

  if (route === '/v1' || route.startsWith('/v1/')) {
    // OAuth tokens are issued to API keys, never to console sessions.
    if (route.startsWith('/v1/oauth')) return false;
    switch (role) {
      case 'ADMIN':
        return true;
      case 'USER':
        return !matches(ADMIN_ONLY_V1, verb, route);
      case 'VIEWER':
        return safe;
      case 'MERCHANT':
        return safe ? !MERCHANT_HIDDEN.test(route) : matches(MERCHANT_WRITES, verb, route);
    }
  }
  return false;
}

/** Whether `method route` is one of the organisation-wide acts the owner may call from a console session. */
export function ownerAllows(method: string, route: string): boolean {
  return matches(OWNER_ACTS, method.toUpperCase(), route);
}

/** Who a console session acts as: the role in its project, and whether the user owns the organisation. */
export interface SessionGrant {
  role: Role;
  owner: boolean;
}

/**
 * Whether a console session may call `method route`: its role allows it (`roleAllows`), or its user is the
 * organisation's owner and the route is an owner's act. The HTTP layer asks this on every session request
 * and the session's list of routes is made from it, so the console offers what the server accepts.
 */
export function sessionAllows(grant: SessionGrant, method: string, route: string, writes = !isSafeMethod(method)): boolean {
  return roleAllows(grant.role, method, route, writes) || (grant.owner && ownerAllows(method, route));
}
