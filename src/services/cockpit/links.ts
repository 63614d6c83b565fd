import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { bumpCockpitGeneration, cockpitGenerations, findCockpitKey, findLiveProjectCockpitKey, insertCockpitKeyIfAbsent } from '../../store/cockpit.ts';
import type { Executor } from '../../store/db.ts';
import type { Deps } from '../context.ts';

// A customer's cockpit link (`assets.cockpit_url`, `assets.cockpit_preference_center_url`) is the
// customer's only credential for the cockpit, so:
// - it is unguessable: it carries an HMAC-SHA256 (256 bits) of the project, the customer and the link's
//   generation, under a key made from the installation's pepper and the project's own random secret;
// - nothing that opens a cockpit is stored: the link is derived again whenever a customer object is
//   answered, and checked by deriving it again (no table of links to leak or to look up by);
// - rotating counts the customer's generation up, so every earlier link stops working;
// - it expires: it carries the day it stops working (signed with the rest), at least
//   PUNCHCARD_COCKPIT_LINK_DAYS after it was handed out. The day is counted from the start of the current
//   UTC day, so every answer of one day hands out the same link;
// - a customer who is deleted (or permanently deleted), or whose project is deleted, has no cockpit: the
//   check reads the project's key only for a live project and needs a live customer, both from the
//   database on every request, so a deletion by any process takes effect at once;
// - the token travels in the URL's fragment (`#token=`), which browsers never send to a server, so it
//   stays out of access logs, proxies and Referer headers; the page hands it to the cockpit API in a header.

export interface CockpitAssets {
  cockpit_url: string;
  cockpit_preference_center_url: string;
}

export interface CockpitHolder {
  projectId: string;
  customerId: string;
}

// The per-project key never changes once made, so each process derives it once — but only from a secret
// it read, never from one it has just inserted: that insert may belong to a transaction that still rolls
// back, and a key cached from it would sign links no other process (and no restart) accepts.
const keys = new Map<string, Buffer>();

const keyOf = (deps: Pick<Deps, 'pepper'>, secret: string) => createHmac('sha256', deps.pepper).update(`cockpit-key:${secret}`).digest();

async function projectKey(deps: Pick<Deps, 'pepper' | 'clock'>, db: Executor, projectId: string): Promise<Buffer> {
  const cached = keys.get(projectId);
  if (cached) return cached;
  const secret = await findCockpitKey(db, projectId);
  if (secret !== undefined) {
    if (keys.size > 10_000) keys.clear();
    keys.set(projectId, keyOf(deps, secret));
    return keyOf(deps, secret);
  }
  await insertCockpitKeyIfAbsent(db, projectId, randomBytes(32).toString('base64url'), deps.clock.now().toISOString());
  // Whichever secret won the insert (another process may have made one first).
  const made = await findCockpitKey(db, projectId);
  if (made === undefined) throw new Error('cockpit key vanished after its insert');
  return keyOf(deps, made);
}

const DAY_MS = 24 * 3600 * 1000;

/** The UTC day (days since 1970-01-01) a link handed out now stops working on. */
function expiryDay(deps: Pick<Deps, 'clock' | 'config'>): number {
  return Math.floor(deps.clock.now().getTime() / DAY_MS) + 1 + deps.config.cockpitLinkDays;
}

function mac(key: Buffer, holder: CockpitHolder, generation: number, expiresOnDay: number): string {
  return createHmac('sha256', key).update(`cockpit:${holder.projectId}:${holder.customerId}:${generation}:${expiresOnDay}`).digest('base64url');
}

/** `<project:customer, base64url>.<expiry day, base 36>.<HMAC>` */
function tokenOf(key: Buffer, holder: CockpitHolder, generation: number, expiresOnDay: number): string {
  const payload = Buffer.from(`${holder.projectId}:${holder.customerId}`, 'utf8').toString('base64url');
  return `${payload}.${expiresOnDay.toString(36)}.${mac(key, holder, generation, expiresOnDay)}`;
}

function assetsOf(deps: Pick<Deps, 'config'>, token: string): CockpitAssets {
  const base = deps.config.publicUrl.replace(/\/+$/, '');
  return { cockpit_url: `${base}/cockpit#token=${token}`, cockpit_preference_center_url: `${base}/cockpit/preferences#token=${token}` };
}

/** The current cockpit links of some customers of one project. */
export async function cockpitAssets(
  deps: Pick<Deps, 'pepper' | 'clock' | 'config'>,
  db: Executor,
  projectId: string,
  customerIds: readonly string[],
): Promise<Map<string, CockpitAssets>> {
  const out = new Map<string, CockpitAssets>();
  if (customerIds.length === 0) return out;
  const key = await projectKey(deps, db, projectId);
  const generations = await cockpitGenerations(db, projectId, customerIds);
  const expires = expiryDay(deps);
  for (const customerId of customerIds) out.set(customerId, assetsOf(deps, tokenOf(key, { projectId, customerId }, generations.get(customerId) ?? 0, expires)));
  return out;
}

/** The cockpit links of one customer whose link generation the caller has read. */
export async function cockpitAssetsAt(
  deps: Pick<Deps, 'pepper' | 'clock' | 'config'>,
  db: Executor,
  holder: CockpitHolder,
  generation: number,
): Promise<CockpitAssets> {
  return assetsOf(deps, tokenOf(await projectKey(deps, db, holder.projectId), holder, generation, expiryDay(deps)));
}

/** Retires the customer's links (cockpitAssets then answers the new ones). The caller has checked the customer is live. */
export async function rotateCockpitLinks(deps: Pick<Deps, 'clock'>, db: Executor, holder: CockpitHolder): Promise<void> {
  await bumpCockpitGeneration(db, holder.projectId, holder.customerId, deps.clock.now().toISOString());
}

const PAYLOAD = /^[A-Za-z0-9_-]{1,400}$/;
const EXPIRY = /^[0-9a-z]{1,8}$/;
const MAC = /^[A-Za-z0-9_-]{43}$/;

/**
 * The project and customer a token opens, or null for anything else: malformed, tampered, expired, retired
 * by a rotation, or naming a project or customer that does not exist or a deleted project — all alike, so
 * an answer never tells whether an id exists. Whether the customer is still live is the caller's next check.
 */
export async function readCockpitToken(deps: Pick<Deps, 'pepper' | 'clock'>, db: Executor, token: string): Promise<CockpitHolder | null> {
  const [payload, expiry, given, extra] = token.split('.');
  if (!payload || !expiry || !given || extra !== undefined || !PAYLOAD.test(payload) || !EXPIRY.test(expiry) || !MAC.test(given)) return null;
  const decoded = Buffer.from(payload, 'base64url').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0 || colon === decoded.length - 1) return null;
  const holder = { projectId: decoded.slice(0, colon), customerId: decoded.slice(colon + 1) };
  const expiresOnDay = Number.parseInt(expiry, 36);
  // Only a live project has a key to check against; any other is checked against a throwaway key, so it
  // fails in the same way and about the same time as a wrong signature.
  const secret = await findLiveProjectCockpitKey(db, holder.projectId);
  const key = secret === undefined ? randomBytes(32) : keyOf(deps, secret);
  const generation = (await cockpitGenerations(db, holder.projectId, [holder.customerId])).get(holder.customerId) ?? 0;
  const expected = Buffer.from(mac(key, holder, generation, expiresOnDay));
  const actual = Buffer.from(given);
  if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return null;
  return Math.floor(deps.clock.now().getTime() / DAY_MS) < expiresOnDay ? holder : null;
}
