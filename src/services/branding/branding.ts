import { DomainError, errors } from '../../domain/errors.ts';
import { deleteBranding, findBranding, findProjectBranding, insertBranding, updateBranding, type BrandingRow } from '../../store/brandings.ts';
import { fromJson, toJson } from '../../store/json.ts';
import { findProject, lockProjectRow } from '../../store/projects.ts';
import { isUniqueViolation } from '../../store/sql-errors.ts';
import type { Executor } from '../../store/db.ts';
import { inTransaction, listing, type Deps } from '../context.ts';
import { readableRows } from '../../lib/unreadable-rows.ts';

// The project's branding (vendor management API `…/branding`): one per project (a second answers 409
// `branding_exist`, as the vendor does). The customer cockpit shows the name, contact, address and
// links, and Punchcard's `cockpit` member (logo and colours); without a branding it uses the project's
// name and neutral colours (src/services/cockpit/).

const BRAND_KEYS = ['name', 'privacy_policy_url', 'terms_of_use_url', 'permission_reminder', 'website_url'] as const;
const ADDRESS_KEYS = ['street', 'city', 'postal', 'state', 'country'] as const;
const CONTACT_KEYS = ['email', 'phone'] as const;
const COCKPIT_KEYS = ['logo_url', 'primary_color', 'accent_color'] as const;

type Section<K extends readonly string[]> = { [P in K[number]]: string | null };
export type Brand = Section<typeof BRAND_KEYS>;
export type BrandAddress = Section<typeof ADDRESS_KEYS>;
export type BrandContact = Section<typeof CONTACT_KEYS>;
export type BrandCockpit = Section<typeof COCKPIT_KEYS>;

export interface BrandingObject {
  id: string;
  brand: Brand;
  address: BrandAddress;
  contact: BrandContact;
  cockpit: BrandCockpit;
  created_at: string;
  updated_at: string | null;
  object: 'branding';
}

type SectionInput = Record<string, string | null | undefined> | null | undefined;
export interface BrandingInput {
  brand?: SectionInput;
  address?: SectionInput;
  contact?: SectionInput;
  cockpit?: SectionInput;
}

function section<K extends readonly string[]>(keys: K, stored: Record<string, unknown> | null): Section<K> {
  const out = {} as Record<string, string | null>;
  for (const key of keys) {
    const value = stored?.[key];
    out[key] = typeof value === 'string' ? value : null;
  }
  return out as Section<K>;
}

export function brandingObject(row: BrandingRow): BrandingObject {
  return {
    id: row.id,
    brand: section(BRAND_KEYS, fromJson(row.brand, null)),
    address: section(ADDRESS_KEYS, fromJson(row.address, null)),
    contact: section(CONTACT_KEYS, fromJson(row.contact, null)),
    cockpit: section(COCKPIT_KEYS, fromJson(row.cockpit, null)),
    created_at: row.created_at,
    updated_at: row.updated_at,
    object: 'branding',
  };
}

/** An http(s) URL; the vendor's own example gives a bare host (`voucherify.io`), taken as https. */
function webUrl(value: string): URL | null {
  for (const candidate of [value, `https://${value}`]) {
    try {
      const url = new URL(candidate);
      if ((url.protocol === 'https:' || url.protocol === 'http:') && (url.hostname.includes('.') || url.hostname === 'localhost')) return url;
    } catch {
      // try the next reading
    }
  }
  return null;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const COLOR = /^#[0-9a-fA-F]{6}$/;

function check(field: string, key: string, value: string): void {
  // Worded as the schema's own errors ("Property .a.b …") so a form can show it beside the member's field.
  const bad = (what: string) => {
    throw errors.invalidPayload(`Property .${field}.${key} must be ${what}`);
  };
  if (key.endsWith('_url')) {
    const url = webUrl(value);
    if (!url) bad('an http(s) URL');
    // The logo is loaded by customers' browsers from the cockpit page: a full https (or http) address only.
    if (key === 'logo_url' && !/^https?:\/\//i.test(value)) bad('an absolute http(s) URL');
  }
  if (key === 'email' && !EMAIL.test(value)) bad('an e-mail address');
  if (key.endsWith('_color') && !COLOR.test(value)) bad('a colour as #rrggbb');
}

/** The section as it will be stored: the members given replace the stored ones; null clears one. */
function merged(field: string, keys: readonly string[], stored: string | null, input: SectionInput): string | null {
  if (input === undefined) return stored;
  if (input === null) return null;
  const out: Record<string, string | null> = { ...fromJson<Record<string, string | null>>(stored, {}) };
  for (const key of keys) {
    const value = input[key];
    if (value === undefined) continue;
    if (value !== null) check(field, key, value);
    out[key] = value;
  }
  return toJson(out);
}

function sections(stored: Pick<BrandingRow, 'brand' | 'address' | 'contact' | 'cockpit'>, input: BrandingInput) {
  return {
    brand: merged('brand', BRAND_KEYS, stored.brand, input.brand),
    address: merged('address', ADDRESS_KEYS, stored.address, input.address),
    contact: merged('contact', CONTACT_KEYS, stored.contact, input.contact),
    cockpit: merged('cockpit', COCKPIT_KEYS, stored.cockpit, input.cockpit),
  };
}

async function liveProject(db: Executor, projectId: string): Promise<void> {
  if (!(await findProject(db, projectId))) throw errors.notFound('project', projectId);
}

const exists = () =>
  new DomainError('branding_exist', 409, { message: 'Branding exist', details: 'The project already has a branding; update it instead', resourceType: 'branding' });

export async function createBranding(deps: Deps, projectId: string, input: BrandingInput): Promise<BrandingObject> {
  const values = sections({ brand: null, address: null, contact: null, cockpit: null }, input);
  try {
    return await inTransaction(deps, async (tx) => {
      await liveProject(tx, projectId);
      await lockProjectRow(tx, projectId);
      if (await findProjectBranding(tx, projectId)) throw exists();
      const row: BrandingRow = { id: deps.ids.next('brd'), project_id: projectId, ...values, created_at: deps.clock.now().toISOString(), updated_at: null };
      await insertBranding(tx, row);
      return brandingObject(row);
    });
  } catch (error) {
    // Two creations at once on SQLite's or PostgreSQL's unique project_id: the later one lost.
    if (isUniqueViolation(error)) throw exists();
    throw error;
  }
}

export async function listBrandings(deps: Deps, projectId: string) {
  await liveProject(deps.db, projectId);
  const row = await findProjectBranding(deps.db, projectId);
  const data = await readableRows(listing(deps, { projectId }, 'branding'), row ? [row] : [], (some) => some.map(brandingObject));
  return { object: 'list' as const, data_ref: 'data' as const, data, total: data.length };
}

export async function getBranding(deps: Deps, projectId: string, id: string): Promise<BrandingObject> {
  await liveProject(deps.db, projectId);
  const row = await findBranding(deps.db, projectId, id);
  if (!row) throw errors.notFound('branding', id);
  return brandingObject(row);
}

export async function changeBranding(deps: Deps, projectId: string, id: string, input: BrandingInput): Promise<BrandingObject> {
  return inTransaction(deps, async (tx) => {
    await liveProject(tx, projectId);
    const row = await findBranding(tx, projectId, id);
    if (!row) throw errors.notFound('branding', id);
    const next: BrandingRow = { ...row, ...sections(row, input), updated_at: deps.clock.now().toISOString() };
    if (!(await updateBranding(tx, projectId, id, { brand: next.brand, address: next.address, contact: next.contact, cockpit: next.cockpit, updated_at: next.updated_at }))) {
      throw errors.notFound('branding', id);
    }
    return brandingObject(next);
  });
}

export async function removeBranding(deps: Deps, projectId: string, id: string): Promise<void> {
  await inTransaction(deps, async (tx) => {
    await liveProject(tx, projectId);
    if (!(await deleteBranding(tx, projectId, id))) throw errors.notFound('branding', id);
  });
}

/** The project's branding for the cockpit, or null when it has none. */
export async function projectBranding(db: Executor, projectId: string): Promise<BrandingObject | null> {
  const row = await findProjectBranding(db, projectId);
  return row ? brandingObject(row) : null;
}
