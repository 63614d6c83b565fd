import type { FastifyInstance, FastifyRequest } from 'fastify';
import secureJson from 'secure-json-parse';
import { domainError } from '../../domain/errors.ts';

export const BODY_LIMIT_BYTES = 10 * 1024 * 1024;

/**
 * Objects and arrays may nest this deep in a JSON body. Every body our routes take fits in far fewer
 * levels (free-form members allow 16 of their own), and refusing deeper text before it is parsed means
 * no recursive code (validation, JSON.stringify, the database's JSON functions) ever sees it.
 */
export const MAX_BODY_DEPTH = 64;

/**
 * Whether JSON text nests objects and arrays deeper than `limit`. Brackets inside strings do not count;
 * text that is not JSON is left to the parser to refuse.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash escapes the next character, a quote included
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

const FORM = 'application/x-www-form-urlencoded';

/** Whether the request's route declares that it consumes form bodies (no route at all: the 404 answers). */
function takesForms(request: FastifyRequest): boolean {
  if (request.is404) return true;
  const consumes = (request.routeOptions.schema as { consumes?: unknown } | undefined)?.consumes;
  return Array.isArray(consumes) && consumes.includes(FORM);
}

// The official SDK sends `Content-Type: application/json` with no body on GET and DELETE, which the
// default parser refuses; an empty body is simply no body. JSON is parsed without prototype pollution,
// and only after its nesting was measured.
export function installBodyParsers(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();

  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: BODY_LIMIT_BYTES }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    if (nestsDeeperThan(text, MAX_BODY_DEPTH)) {
      return done(domainError('invalid_payload', { details: `Request body nests objects and arrays deeper than ${MAX_BODY_DEPTH} levels` }), undefined);
    }
    try {
      done(null, secureJson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' }));
    } catch {
      done(domainError('malformed_json', { details: 'Request body is not valid JSON' }), undefined);
    }
  });

  // Form bodies only where the vendor takes them: the OAuth endpoints (seed 4.2, 4.3), which say so with
  // `consumes` in their schema. Anywhere else a form is refused like any other foreign type: read as
  // JSON-less fields it would pass a schema that requires nothing and, for instance, create a blank
  // customer from `curl -d '{"name":"x"}'`.
  app.addContentTypeParser(
    FORM,
    { parseAs: 'string', bodyLimit: BODY_LIMIT_BYTES },
    (request, body, done) => {
      const text = typeof body === 'string' ? body : body.toString('utf8');
      if (takesForms(request)) return done(null, Object.fromEntries(new URLSearchParams(text)));
      if (text === '') return done(null, undefined);
      done(
        domainError('unsupported_media_type', {
          details: 'Content-Type application/x-www-form-urlencoded is accepted only by the OAuth endpoints; send application/json',
        }),
        undefined,
      );
    },
  );

  // Anything else is refused, unless it carries no body at all (clients label bodiless requests oddly).
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: BODY_LIMIT_BYTES }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text === '') return done(null, undefined);
    done(
      domainError('unsupported_media_type', {
        details: `Content-Type ${request.headers['content-type'] ?? '(none)'} is not accepted; send application/json`,
      }),
      undefined,
    );
  });
}
