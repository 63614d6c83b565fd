// The cockpit's only credential is the token in its link's fragment (`#token=…`): browsers never send a
// fragment to a server, so the token stays out of logs and Referer headers. The page sends it to the
// cockpit API in a header. Errors keep the API's own body.

export interface ErrorBody {
  code: number;
  key: string;
  message: string;
  details?: string;
}

export class CockpitError extends Error {
  readonly status: number;
  readonly body: ErrorBody;
  constructor(status: number, body: ErrorBody) {
    super(body.details ?? body.message);
    this.status = status;
    this.body = body;
  }
}

export function linkToken(): string {
  const match = /(?:^#|&)token=([^&]+)/.exec(window.location.hash);
  return match?.[1] ? decodeURIComponent(match[1]) : '';
}

/** A random key for one intent (one tap of Confirm); getRandomValues also works on plain-http pages. */
export function intentKey(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return `cockpit-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function cockpitApi<T>(method: string, path: string, body?: unknown, idempotencyKey?: string): Promise<T> {
  const headers: Record<string, string> = { 'x-cockpit-token': linkToken() };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(`/cockpit/v1${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }), credentials: 'omit' });
    const text = await res.text();
    const parsed = text ? JSON.parse(text) : null;
    // The same intent is still being carried out (a double tap): ask again for its answer.
    if (res.status === 409 && parsed?.key === 'idempotency_request_in_progress' && attempt < 10) {
      await wait(200);
      continue;
    }
    if (!res.ok) throw new CockpitError(res.status, parsed ?? { code: res.status, key: 'error', message: res.statusText });
    return parsed as T;
  }
}

export type { Brand, Reward, Transaction, HistoryPage, CouponRule, CouponTerms, LoyaltyCard, Discount, Wallet, Preferences } from './types.ts';
