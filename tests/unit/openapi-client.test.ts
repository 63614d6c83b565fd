import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import openapiTS, { astToString } from 'openapi-typescript';

// The committed openapi.json is usable by real tools: openapi-typescript (a maintained generator) turns it
// into TypeScript types, and a small client written against those types type-checks. The client names
// operations and named schemas (components/schemas) the way a user of the document would; its two
// expected-error lines fail the check if the generated types were too loose to catch a mistake.

const root = join(import.meta.dirname, '..', '..');

const CLIENT = `import type { components, paths } from './api.ts';

type Customer = components['schemas']['Customer'];
type Voucher = components['schemas']['Voucher'];
type ApiError = components['schemas']['Error'];

type Json<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type GetCustomer = Json<paths['/v1/customers/{customerId}']['get']['responses'][200]>;
type CreateCustomerBody = NonNullable<paths['/v1/customers']['post']['requestBody']>['content']['application/json'];
type RedeemAnswer = Json<paths['/v1/redemptions']['post']['responses'][200]>;
type NotFound = Json<paths['/v1/customers/{customerId}']['get']['responses'][404]>;

export async function getCustomer(base: string, headers: Record<string, string>, id: string): Promise<Customer> {
  const res = await fetch(\`\${base}/v1/customers/\${encodeURIComponent(id)}\`, { headers });
  if (!res.ok) {
    const error = (await res.json()) as NotFound;
    throw new Error(\`\${error.code} \${error.key}: \${error.message}\`);
  }
  const customer: GetCustomer = (await res.json()) as GetCustomer;
  return customer;
}

export function newCustomer(sourceId: string): CreateCustomerBody {
  return { source_id: sourceId, name: 'Ada', metadata: { tier: 'gold' } };
}

export function describe(customer: Customer, voucher: Voucher, error: ApiError, redeemed: RedeemAnswer): string {
  const id: string = customer.id;
  const code: string = voucher.code;
  const status: number = error.code;
  // @ts-expect-error a customer has no such member
  void customer.no_such_member;
  // @ts-expect-error the error code is a number, not text
  const wrong: string = error.code;
  return [id, code, status, wrong, typeof redeemed].join(' ');
}
`;

test('types generated from openapi.json by openapi-typescript type-check a small client', async () => {
  const ast = await openapiTS(pathToFileURL(join(root, 'openapi.json')));
  const dir = mkdtempSync(join(tmpdir(), 'punchcard-openapi-client-'));
  try {
    writeFileSync(join(dir, 'api.ts'), astToString(ast));
    writeFileSync(join(dir, 'client.ts'), CLIENT);
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    const args = [tsc, '--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--allowImportingTsExtensions', '--skipLibCheck', '--types', 'node', '--typeRoots', join(root, 'node_modules', '@types'), join(dir, 'client.ts')];
    const result = spawnSync(process.execPath, args, { cwd: dir, encoding: 'utf8' });
    assert.equal(result.status, 0, `tsc on the generated types and the client:\n${result.stdout}${result.stderr}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
