import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { domainError } from '../../domain/errors.ts';

export const BODY_LIMIT_BYTES = 10 * 1024 * 1024;

// The official SDK sends `Content-Type: application/json` with no body on GET and DELETE, which the
// default parser refuses; an empty body is simply no body. JSON is parsed without prototype pollution.
export function installBodyParsers(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();

  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: BODY_LIMIT_BYTES }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, secureJson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' }));
    } catch {
      done(domainError('malformed_json', { details: 'Request body is not valid JSON' }), undefined);
    }
  });

  // OAuth endpoints take form bodies (seed 4.2, 4.3).
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: BODY_LIMIT_BYTES },
    (_request, body, done) => {
      const text = typeof body === 'string' ? body : body.toString('utf8');
      done(null, Object.fromEntries(new URLSearchParams(text)));
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
