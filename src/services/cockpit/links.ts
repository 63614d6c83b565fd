import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { bumpCockpitGeneration, cockpitGenerations, findCockpitKey, insertCockpitKeyIfAbsent } from '../../store/cockpit.ts';
import type { Executor } from '../../store/db.ts';
import type { Deps } from '../context.ts';

// A customer's cockpit link (`assets.cockpit_url`, `assets.cockpit_preference_center_url`) is the
// customer's only credential for the cockpit, so:
// - it is unguessable: it carries an HMAC-SHA256 (256 bits) of the project, the customer and the link's
//   generation, under a key made from the installation's pepper and the project's own random secret;
// - nothing that opens a cockpit is stored: the link is derived again whenever a customer object is
//   answered, and checked by deriving it again (no table of links to leak or to look up by);
// - rotating counts the customer's generation up, so every earlier link stops working;
// - a customer who is deleted (or permanently deleted) has no cockpit: the check needs a live customer;
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

function mac(key: Buffer, holder: CockpitHolder, generation: number): string {
  return createHmac('sha256', key).update(`cockpit:${holder.projectId}:${holder.customerId}:${generation}`).digest('base64url');
}

function tokenOf(key: Buffer, holder: CockpitHolder, generation: number): string {
  const payload = Buffer.from(`${holder.projectId}:${holder.customerId}`, 'utf8').toString('base64url');
  return `${payload}.${mac(key, holder, generation)}`;
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
  for (const customerId of customerIds) out.set(customerId, assetsOf(deps, tokenOf(key, { projectId, customerId }, generations.get(customerId) ?? 0)));
  return out;
}

/** The cockpit links of one customer whose link generation the caller has read. */
export async function cockpitAssetsAt(
  deps: Pick<Deps, 'pepper' | 'clock' | 'config'>,
  db: Executor,
  holder: CockpitHolder,
  generation: number,
): Promise<CockpitAssets> {
  return assetsOf(deps, tokenOf(await projectKey(deps, db, holder.projectId), holder, generation));
}

/** Retires the customer's links (cockpitAssets then answers the new ones). The caller has checked the customer is live. */
export async function rotateCockpitLinks(deps: Pick<Deps, 'clock'>, db: Executor, holder: CockpitHolder): Promise<void> {
  await bumpCockpitGeneration(db, holder.projectId, holder.customerId, deps.clock.now().toISOString());
}

const PAYLOAD = /^[A-Za-z0-9_-]{1,400}$/;
const MAC = /^[A-Za-z0-9_-]{43}$/;

/**
 * The project and customer a token opens, or null for anything else: malformed, tampered, retired by a
 * rotation, or naming a project or customer that does not exist — all alike, so an answer never tells
 * whether an id exists. Whether the customer is still live is the caller's next check.
 */
export async function readCockpitToken(deps: Pick<Deps, 'pepper' | 'clock'>, db: Executor, token: string): Promise<CockpitHolder | null> {
  const [payload, given, extra] = token.split('.');
  if (!payload || !given || extra !== undefined || !PAYLOAD.test(payload) || !MAC.test(given)) return null;
  const decoded = Buffer.from(payload, 'base64url').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0 || colon === decoded.length - 1) return null;
  const holder = { projectId: decoded.slice(0, colon), customerId: decoded.slice(colon + 1) };
  // Only an existing project has a key; an unknown one is checked against a throwaway key, so it fails
  // in the same way and about the same time as a wrong signature.
  const secret = await findCockpitKey(db, holder.projectId);
  const key = secret === undefined ? randomBytes(32) : await projectKey(deps, db, holder.projectId);
  const generation = (await cockpitGenerations(db, holder.projectId, [holder.customerId])).get(holder.customerId) ?? 0;
  const expected = Buffer.from(mac(key, holder, generation));
  const actual = Buffer.from(given);
  return expected.length === actual.length && timingSafeEqual(expected, actual) ? holder : null;
}
