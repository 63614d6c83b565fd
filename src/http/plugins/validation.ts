import type { Ajv } from 'ajv';
import type { FastifyInstance, FastifySchema } from 'fastify';
import { compileNormalizing, describeTextProblem, makeAjv, textProblem } from '../../api/checks.ts';
import { STREAMED_BODY } from '../../api/csv-imports.ts';
import { domainError } from '../../domain/errors.ts';

// Two validators: bodies are checked exactly as sent (a string is never silently turned into a number),
// while query strings, path parameters and headers arrive as text and are coerced to their declared types.
// The checks themselves are the contract's (src/api/checks.ts).

/** Whether a route reads its body itself as a stream (a file upload): documented, never parsed here. */
function isStreamedBody(schema: unknown): boolean {
  return typeof schema === 'object' && schema !== null && (schema as Record<string, unknown>)[STREAMED_BODY] === true;
}

type Validate = ReturnType<typeof compileNormalizing>;

// Compiling every route's schemas is most of what building the app costs (about 3 s of CPU for ~240
// operations), and a test process builds many apps that each call a handful of routes. So a route's
// validator is compiled when it first checks a request, once per schema object for the whole process
// (the schemas are module constants, shared by every app). `punchcard start` compiles them all before it
// listens (compilePendingValidators), so a served request never waits for a compile.
const compiled = { body: new WeakMap<object, Validate>(), text: new WeakMap<object, Validate>() };
const ajvs: { body: Ajv | null; text: Ajv | null } = { body: null, text: null };
const pending = new Set<() => void>();

function validatorFor(kind: 'body' | 'text', schema: object): Validate {
  let validate = compiled[kind].get(schema);
  if (!validate) {
    const ajv = (ajvs[kind] ??= makeAjv({ coerceTypes: kind === 'body' ? false : 'array' }));
    validate = compileNormalizing(ajv, schema);
    compiled[kind].set(schema, validate);
  }
  return validate;
}

function lazyValidator(kind: 'body' | 'text', schema: object) {
  let validate: Validate | null = null;
  const load = () => {
    validate ??= validatorFor(kind, schema);
    pending.delete(load);
    return validate;
  };
  pending.add(load);
  const check = (data: unknown) => {
    const v = validate ?? load();
    const ok = v(data);
    check.errors = v.errors;
    return ok;
  };
  check.errors = null as Validate['errors'];
  return check;
}

/** Compiles every validator not yet used (an invalid schema throws here, at start, not on a request). */
export function compilePendingValidators(): number {
  const loads = [...pending];
  for (const load of loads) load();
  return loads.length;
}

export function installValidators(app: FastifyInstance): void {
  app.setValidatorCompiler(({ schema, httpPart }) => {
    if (httpPart === 'body' && isStreamedBody(schema)) return () => true;
    return lazyValidator(httpPart === 'body' ? 'body' : 'text', schema as FastifySchema & object);
  });
}

/**
 * Text that cannot be stored is refused before it reaches a handler, on every route and at any depth:
 * PostgreSQL cannot keep NUL in text or jsonb, nor a lone surrogate in jsonb (either would surface later
 * as a 500 for whoever reads the row), and no identifier or name of ours may contain one. Both databases
 * refuse the same requests.
 */
export function installTextGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const inPath = textProblem(request.params);
    if (inPath) throw domainError('invalid_query_params', { details: describeTextProblem(inPath, 'Path') });
    const inQuery = textProblem(request.query);
    if (inQuery) throw domainError('invalid_query_params', { details: describeTextProblem(inQuery, 'Query') });
    const inBody = textProblem(request.body);
    if (inBody) throw domainError('invalid_payload', { details: describeTextProblem(inBody, 'Payload') });
  });
}
