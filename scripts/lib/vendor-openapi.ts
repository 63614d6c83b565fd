import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// The vendor's OpenAPI document (Voucherify v2018-08-01), which Punchcard's API follows. It is not part of
// the repository: PUNCHCARD_VENDOR_OPENAPI names the file, else it is looked up next to the project at
// ../shared/reference/vendor-openapi-v2018-08-01.json (where the development machine keeps it).

export const VENDOR_OPENAPI_ENV = 'PUNCHCARD_VENDOR_OPENAPI';

export interface VendorOperationDoc {
  operationId?: string;
  requestBody?: { content?: Record<string, { schema?: unknown; examples?: Record<string, { value?: unknown }> }> };
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

export interface VendorDocument {
  paths: Record<string, Record<string, VendorOperationDoc>>;
  components: { schemas: Record<string, unknown> };
}

export interface VendorOperation {
  method: string;
  /** The vendor's path template, `{param}` style. */
  path: string;
  operationId: string;
  doc: VendorOperationDoc;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** Where the vendor document is, or null when it is not on this machine. */
export function vendorOpenApiPath(): string | null {
  const candidates = [process.env[VENDOR_OPENAPI_ENV], join(import.meta.dirname, '..', '..', '..', 'shared', 'reference', 'vendor-openapi-v2018-08-01.json')];
  return candidates.find((path): path is string => typeof path === 'string' && path !== '' && existsSync(path)) ?? null;
}

let cached: VendorDocument | null = null;

export function loadVendorOpenApi(path = vendorOpenApiPath()): VendorDocument {
  if (path === null) throw new Error(`the vendor OpenAPI document was not found: set ${VENDOR_OPENAPI_ENV} to its path`);
  cached ??= JSON.parse(readFileSync(path, 'utf8')) as VendorDocument;
  return cached;
}

export function vendorOperations(document: VendorDocument): VendorOperation[] {
  const operations: VendorOperation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const doc = item[method];
      if (doc) operations.push({ method: method.toUpperCase(), path, operationId: doc.operationId ?? `${method} ${path}`, doc });
    }
  }
  return operations;
}

/** `/v1/vouchers/{code}` → `/v1/vouchers/:code`: the router's template syntax (parameter names do not matter to it). */
export function routerTemplate(path: string): string {
  return path.replace(/\{[^}]+\}/g, (name) => `:${name.slice(1, -1).replace(/[^A-Za-z0-9_]/g, '_')}`);
}
