// The console talks to the public API only (the same routes API clients use), with the session cookie.
// Every change carries the session's CSRF token; an answer that is not 2xx becomes an ApiError holding
// the API's own error body, so forms can show its `details` next to the field it names.

import { ApiError, type ErrorBody } from './errors.ts';

export { ApiError, type ErrorBody };

let csrfToken: string | null = null;
const unauthorizedListeners = new Set<() => void>();
const refusedListeners = new Set<() => void>();

export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

/** Called when the API answers 401: the session ended (expired, signed out elsewhere). */
export function onUnauthorized(listener: () => void): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

/**
 * Called when the API refuses a change for the role (403 missing_required_permission): the page offered
 * it, so the role has changed since the session was read (an ADMIN changed it).
 */
export function onRoleRefused(listener: () => void): () => void {
  refusedListeners.add(listener);
  return () => refusedListeners.delete(listener);
}

function csrfFromCookie(): string | null {
  const match = /(?:^|;\s*)punchcard_csrf=([^;]+)/.exec(document.cookie);
  return match?.[1] ?? null;
}

export type Query = Record<string, string | number | boolean | undefined | null>;

export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  const text = params.toString();
  return text === '' ? path : `${path}?${text}`;
}

/** Routes whose 401 is about the password or the link sent, not about a session that ended. */
const LINK_OR_SIGN_IN = /^\/console\/v1\/(session|setup|invitation|password-reset)(\/|$)/;

export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') {
    const token = csrfToken ?? csrfFromCookie();
    if (token) headers['x-csrf-token'] = token;
  }
  const response = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!response.ok) {
    const errorBody =
      parsed && typeof parsed === 'object' && 'key' in parsed
        ? (parsed as ErrorBody)
        : { code: response.status, key: 'unexpected_answer', message: `The server answered ${response.status}`, details: text.slice(0, 200) };
    if (response.status === 401 && !LINK_OR_SIGN_IN.test(path)) for (const listener of unauthorizedListeners) listener();
    if (response.status === 403 && errorBody.key === 'missing_required_permission' && method !== 'GET') for (const listener of refusedListeners) listener();
    throw new ApiError(response.status, errorBody);
  }
  return parsed as T;
}

/** A list page as the API answers it: the data member named by `data_ref` (or the given key). */
export interface ListPage<T> {
  items: T[];
  total: number | null;
  hasMore: boolean;
}

export function listOf<T>(answer: Record<string, unknown>, key?: string): ListPage<T> {
  const ref = key ?? (typeof answer.data_ref === 'string' ? answer.data_ref : 'data');
  const items = (Array.isArray(answer[ref]) ? answer[ref] : []) as T[];
  const total = typeof answer.total === 'number' ? answer.total : null;
  const hasMore = typeof answer.has_more === 'boolean' ? answer.has_more : false;
  return { items, total, hasMore };
}
