import { createHmac, timingSafeEqual } from 'node:crypto';
import { code128Modules, UnencodableCodeError } from '../../domain/loyalty/assets/code128.ts';
import { encodeQr } from '../../domain/loyalty/assets/qr-code.ts';
import { encodePng, encodeSvg, scaledBitmap } from '../../domain/loyalty/assets/png.ts';
import { businessError, errors } from '../../domain/errors.ts';
import type { VoucherRow } from '../../store/vouchers.ts';
import { findLiveVoucherById } from '../../store/vouchers.ts';
import type { VoucherAssets } from '../vouchers/render.ts';
import type { Deps } from '../context.ts';

// `assets.qr` and `assets.barcode` of a card (seed 2.5): links that draw the card's code. Like the
// vendor's, the links work without API keys (they end up in e-mails and wallet passes), so each id is
// signed with the installation secret: nobody can draw a code by guessing a voucher id, and the id says
// which project and voucher it belongs to without a lookup table.

export type AssetKind = 'qr' | 'barcode';

function sign(deps: Pick<Deps, 'pepper'>, kind: AssetKind, payload: string): string {
  return createHmac('sha256', deps.pepper).update(`voucher-asset:${kind}:${payload}`).digest('base64url').slice(0, 22);
}

export function assetId(deps: Pick<Deps, 'pepper'>, kind: AssetKind, projectId: string, voucherId: string): string {
  const payload = `${projectId}:${voucherId}`;
  return `${Buffer.from(payload, 'utf8').toString('base64url')}.${sign(deps, kind, payload)}`;
}

/** The project and voucher an asset id names, or null when the id was not made by this installation. */
export function readAssetId(deps: Pick<Deps, 'pepper'>, kind: AssetKind, id: string): { projectId: string; voucherId: string } | null {
  const [encoded, signature, extra] = id.split('.');
  if (!encoded || !signature || extra !== undefined) return null;
  const payload = Buffer.from(encoded, 'base64url').toString('utf8');
  const expected = Buffer.from(sign(deps, kind, payload));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  const colon = payload.indexOf(':');
  if (colon <= 0) return null;
  return { projectId: payload.slice(0, colon), voucherId: payload.slice(colon + 1) };
}

/** The `assets` builder for renderVouchers: absolute links on the configured public base URL. */
export function assetLinker(deps: Pick<Deps, 'pepper' | 'config'>): (row: VoucherRow) => VoucherAssets {
  const base = deps.config.publicUrl.replace(/\/+$/, '');
  return (row) => {
    const qr = assetId(deps, 'qr', row.project_id, row.id);
    const barcode = assetId(deps, 'barcode', row.project_id, row.id);
    return {
      qr: { id: qr, url: `${base}/v1/assets/qr/${qr}` },
      barcode: { id: barcode, url: `${base}/v1/assets/barcode/${barcode}` },
    };
  };
}

export interface AssetQuery {
  /** Pixels per module (1–100). */
  size?: number | undefined;
  format?: 'png' | 'svg' | undefined;
}

export interface AssetImage {
  contentType: 'image/png' | 'image/svg+xml';
  body: Buffer | string;
}

const DEFAULT_SIZE: Record<AssetKind, number> = { qr: 6, barcode: 2 };
const QUIET_MODULES: Record<AssetKind, number> = { qr: 4, barcode: 10 };
/** A barcode is as tall as 40 module widths: readable, and still a strip. */
const BARCODE_HEIGHT_MODULES = 40;
/**
 * The widest picture drawn, in pixels. The links need no key, so `size` must not let anyone ask for a
 * gigapixel image; a larger size is reduced to fit (never below one pixel per module).
 */
export const MAX_ASSET_PIXELS = 2000;

function fittedScale(requested: number, modulesAcross: number): number {
  return Math.max(1, Math.min(requested, Math.floor(MAX_ASSET_PIXELS / modulesAcross)));
}

function undrawable(code: string, reason: string) {
  return businessError('invalid_code', 'Code cannot be drawn', { details: reason, resourceId: code, resourceType: 'voucher' });
}

/** Draws a live voucher's code; the id decides the project, so no API key is involved. */
export async function drawAsset(deps: Deps, kind: AssetKind, id: string, query: AssetQuery): Promise<AssetImage> {
  const named = readAssetId(deps, kind, id);
  if (!named) throw errors.notFound('asset', id);
  const voucher = await findLiveVoucherById(deps.db, named.projectId, named.voucherId);
  if (!voucher) throw errors.notFound('asset', id);
  const requested = query.size ?? DEFAULT_SIZE[kind];
  const quiet = QUIET_MODULES[kind];
  const svg = query.format === 'svg';
  if (kind === 'qr') {
    let qr;
    try {
      qr = encodeQr(Buffer.from(voucher.code, 'utf8'), 'M');
    } catch (error) {
      if (error instanceof RangeError) throw undrawable(voucher.code, error.message);
      throw error;
    }
    const scale = fittedScale(requested, qr.size + 2 * quiet);
    const dark = (x: number, y: number) => (qr.modules[y] as boolean[])[x] as boolean;
    return svg
      ? { contentType: 'image/svg+xml', body: encodeSvg(qr.size, qr.size, dark, scale, quiet) }
      : { contentType: 'image/png', body: encodePng(scaledBitmap(qr.size, qr.size, dark, scale, quiet)) };
  }
  let modules: boolean[];
  try {
    modules = code128Modules(voucher.code);
  } catch (error) {
    if (error instanceof UnencodableCodeError) throw undrawable(voucher.code, error.message);
    throw error;
  }
  // The quiet zone is horizontal only; the bars run the full height.
  const width = modules.length;
  const across = width + 2 * quiet;
  const scale = fittedScale(requested, across);
  const dark = (x: number) => x >= quiet && x < quiet + width && (modules[x - quiet] as boolean);
  return svg
    ? { contentType: 'image/svg+xml', body: encodeSvg(across, 1, dark, scale, 0, scale * BARCODE_HEIGHT_MODULES) }
    : { contentType: 'image/png', body: encodePng(scaledBitmap(across, 1, dark, scale, 0, scale * BARCODE_HEIGHT_MODULES)) };
}
