import { prepareFirstAdmin } from '../../src/services/users/first-admin.ts';
import type { TestApp, TestResponse } from './app.ts';

// Console sessions in API tests: create users, sign in over HTTP and send requests as the browser does
// (session cookie, and the CSRF token header on changes).

export const ADMIN = { email: 'admin@shop.example.com', password: 'admin-password-1' };

/** Creates the organisation's first admin as `punchcard start` does with PUNCHCARD_ADMIN_EMAIL/PASSWORD. */
export async function createFirstAdmin(t: TestApp, admin = ADMIN): Promise<void> {
  const config = { ...t.deps.config, console: { ...t.deps.config.console, firstAdmin: admin } };
  const result = await prepareFirstAdmin({ ...t.deps, config });
  if (result.kind !== 'created') throw new Error(`first admin not created: ${result.kind}`);
}

export interface ConsoleClient {
  cookie: string;
  csrf: string;
  session: TestResponse['body'];
  /**
   * A request with the session cookie, as the console sends it: the CSRF header on every method but GET,
   * unless `csrf: false`; on a GET only when `csrf` is given (true or a token), for routes that write on a GET.
   */
  request(method: string, path: string, options?: { json?: unknown; csrf?: boolean | string; headers?: Record<string, string> }): Promise<TestResponse>;
}

/** The `name=value` pairs of a response's Set-Cookie headers, as a browser would send them back. */
export function cookiesOf(response: TestResponse): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of response.headers.getSetCookie()) {
    const [pair] = line.split(';');
    const at = (pair ?? '').indexOf('=');
    if (at > 0) out[(pair as string).slice(0, at)] = (pair as string).slice(at + 1);
  }
  return out;
}

export function clientFor(t: TestApp, signedIn: TestResponse): ConsoleClient {
  if (signedIn.status !== 200) throw new Error(`sign-in failed: ${signedIn.status} ${signedIn.text}`);
  const cookies = cookiesOf(signedIn);
  const cookie = `punchcard_session=${cookies.punchcard_session}; punchcard_csrf=${cookies.punchcard_csrf}`;
  const csrf = signedIn.body.csrf_token as string;
  return {
    cookie,
    csrf,
    session: signedIn.body,
    request: (method, path, options = {}) => {
      const headers: Record<string, string> = { cookie, ...(options.headers ?? {}) };
      const token = options.csrf === undefined || options.csrf === true ? csrf : options.csrf;
      if (token !== false && (method !== 'GET' || options.csrf !== undefined)) headers['x-csrf-token'] = token;
      return t.request(method, path, { headers, ...(options.json !== undefined ? { json: options.json } : {}) });
    },
  };
}

export function signInRequest(t: TestApp, email: string, password: string, headers: Record<string, string> = {}): Promise<TestResponse> {
  return t.request('POST', '/console/v1/session', { headers, json: { email, password } });
}

export async function signIn(t: TestApp, email: string, password: string): Promise<ConsoleClient> {
  return clientFor(t, await signInRequest(t, email, password));
}

/** Invites a user to the default project (or the given one) with a role (management key), and accepts the invitation. */
export async function addUser(t: TestApp, email: string, role: string, password = 'user-password-1', projectId = t.projectId): Promise<ConsoleClient> {
  const invited = await t.request('POST', '/management/v1/projects/users/invite', {
    headers: t.managementHeaders(),
    json: { email, first_name: role, projects: { [projectId]: role } },
  });
  if (invited.status !== 204) throw new Error(`invite failed: ${invited.status} ${invited.text}`);
  const link = await t.request('POST', `/management/v1/projects/${projectId}/users/${email}/invitation-link`, { headers: t.managementHeaders() });
  if (link.status !== 200) throw new Error(`invitation link failed: ${link.status} ${link.text}`);
  const token = new URL(link.body.url as string).hash.replace('#token=', '');
  return clientFor(t, await t.request('POST', '/console/v1/invitation', { headers: {}, json: { token, password } }));
}
