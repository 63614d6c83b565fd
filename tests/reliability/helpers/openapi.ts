import type { HttpClient } from '../../../scripts/lib/http-client.ts';
import { isObject, type JsonObject } from '../../../scripts/lib/json.ts';
import { withRefsInlined } from '../../helpers/openapi-refs.ts';

// The route list comes from the running server's own OpenAPI document, read at run time: a route added
// tomorrow is swept tomorrow without anyone touching this suite.

export type Schema = JsonObject;
/** `console`: a signed-in console user's cookie only (the sweeps hold no console session). */
export type AuthKind = 'server' | 'server-keys' | 'client' | 'management' | 'console' | 'cockpit' | 'public';

export interface Parameter {
  name: string;
  required: boolean;
  schema: Schema;
}

export interface Operation {
  method: string;
  /** The path template, `{param}` style. */
  path: string;
  operationId: string;
  auth: AuthKind;
  pathParams: Parameter[];
  queryParams: Parameter[];
  body: { schema: Schema; contentType: string } | null;
  /** GET list and get operations: they change nothing, so any input may reach their handlers. */
  readOnly: boolean;
}

function authOf(security: unknown): AuthKind {
  if (!Array.isArray(security) || security.length === 0) return 'public';
  const names = new Set(security.flatMap((s: unknown) => (isObject(s) ? Object.keys(s) : [])));
  if (names.has('X-Management-Id')) return 'management';
  if (names.has('X-Client-Application-Id')) return 'client';
  if (names.has('X-App-Id')) return names.has('X-Service-OAuth') ? 'server' : 'server-keys';
  if (names.has('ConsoleSession')) return 'console';
  if (names.has('CockpitToken')) return 'cockpit';
  return 'public';
}

export async function loadOperations(http: HttpClient): Promise<Operation[]> {
  const res = await http.request({ method: 'GET', path: '/openapi.json' });
  if (res.status !== 200 || !isObject(res.body) || !isObject(res.body.paths)) throw new Error(`GET /openapi.json → ${res.status}`);
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(withRefsInlined(res.body as { paths: Record<string, unknown> }).paths)) {
    if (!isObject(item)) continue;
    for (const [method, raw] of Object.entries(item)) {
      if (!isObject(raw) || !['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const params = (Array.isArray(raw.parameters) ? raw.parameters : []).filter(isObject);
      const toParam = (p: JsonObject): Parameter => ({ name: String(p.name), required: p.required === true, schema: isObject(p.schema) ? p.schema : {} });
      let body: Operation['body'] = null;
      const content = isObject(raw.requestBody) && isObject(raw.requestBody.content) ? raw.requestBody.content : null;
      if (content) {
        const [contentType, media] = Object.entries(content)[0] ?? [];
        if (contentType && isObject(media) && isObject(media.schema)) body = { schema: media.schema, contentType };
      }
      const operationId = typeof raw.operationId === 'string' ? raw.operationId : `${method} ${path}`;
      operations.push({
        method: method.toUpperCase(),
        path,
        operationId,
        auth: authOf(raw.security),
        pathParams: params.filter((p) => p.in === 'path').map(toParam),
        queryParams: params.filter((p) => p.in === 'query').map(toParam),
        body,
        readOnly: method === 'get' && /^(get|list)[A-Z]/.test(operationId),
      });
    }
  }
  return operations;
}

/** The query-string schema as the route validates it: one object of the declared parameters. */
export function querySchema(op: Operation): Schema {
  return {
    type: 'object',
    properties: Object.fromEntries(op.queryParams.map((p) => [p.name, p.schema])),
    required: op.queryParams.filter((p) => p.required).map((p) => p.name),
  };
}
