import { createHmac, timingSafeEqual } from 'node:crypto';

// Delivery signatures (DECISIONS 23). Both are HMAC-SHA256 with the project's webhook secret
// (`webhook_token`) over the exact body bytes that are sent:
// - `x-voucherify-signature`: hex digest of the body, as the vendor signs (receivers written for the
//   vendor keep working);
// - `x-punchcard-signature`: `t=<unix seconds>,v1=<hex digest of "<t>.<body>">`, so a receiver can refuse
//   a replayed delivery whose timestamp is too old.

export function vendorSignature(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body, 'utf8').digest('hex');
}

export function punchcardSignature(secret: string, unixSeconds: number, body: string): string {
  const digest = createHmac('sha256', secret).update(`${unixSeconds}.${body}`, 'utf8').digest('hex');
  return `t=${unixSeconds},v1=${digest}`;
}

function sameHex(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}

export function verifyVendorSignature(secret: string, body: string, header: string | undefined): boolean {
  return header !== undefined && /^[0-9a-f]+$/i.test(header) && sameHex(vendorSignature(secret, body), header);
}

/**
 * Checks `x-punchcard-signature`; `toleranceSeconds` bounds how far the signed time may be from `nowSeconds`
 * (a replay of an old delivery fails).
 */
export function verifyPunchcardSignature(
  secret: string,
  body: string,
  header: string | undefined,
  nowSeconds: number,
  toleranceSeconds = 300,
): boolean {
  if (header === undefined) return false;
  const parts = new Map(header.split(',').map((part) => part.split('=', 2) as [string, string]));
  const t = Number(parts.get('t'));
  const v1 = parts.get('v1');
  if (!Number.isInteger(t) || v1 === undefined || !/^[0-9a-f]+$/i.test(v1)) return false;
  if (Math.abs(nowSeconds - t) > toleranceSeconds) return false;
  const expected = punchcardSignature(secret, t, body).split(',v1=')[1] ?? '';
  return sameHex(expected, v1);
}
