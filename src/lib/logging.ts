import pino, { type DestinationStream, type LoggerOptions } from 'pino';

// Log settings shared by the HTTP server's logger and the process logger (src/main.ts). Secrets never
// reach a log line: credential headers and secret-bearing members are redacted wherever they appear in
// what is logged, and request URLs lose the credentials they can carry — the download token of an
// export link (`?token=…`) and the id of a card image link (`/v1/assets/qr/{id}`), which opens the image
// without keys.
//
// Two formats (LOG_FORMAT): `json`, one JSON object a line for log collectors (the default when standard
// output is not a terminal: containers, pipes, files), and `pretty`, one readable line per entry for a
// person at a terminal (pino-pretty, loaded only then). Either is written synchronously to standard
// output, so the last lines before the process exits are not lost and a block written between them (the
// start banner) is never cut by a log line.

const REDACTED = '[Redacted]';

const SECRET_HEADERS = ['authorization', 'cookie', 'x-app-token', 'x-client-token', 'x-management-token', 'x-voucherify-signature', 'x-punchcard-signature'];
const SECRET_MEMBERS = ['app_token', 'secret', 'secret_key', 'token', 'access_token', 'webhook_token', 'password', 'client_secret'];

/** Paths pino blanks out: headers of a logged request or response, and secret members one level down. */
export const REDACT_PATHS = [
  ...SECRET_HEADERS.flatMap((h) => [`req.headers["${h}"]`, `headers["${h}"]`, `res.headers["${h}"]`]),
  ...SECRET_MEMBERS.flatMap((m) => [m, `*.${m}`]),
];

/** A request URL as it may be logged: credential query values and card image ids replaced. */
export function redactUrl(url: string): string {
  const [path = '', query] = splitOnce(url, '?');
  const safePath = path.replace(/^(\/v1\/assets\/(?:qr|barcode)\/)[^/?]+/, `$1${REDACTED}`);
  if (query === undefined) return safePath;
  const safeQuery = query
    .split('&')
    .map((pair) => {
      const [name = ''] = splitOnce(pair, '=');
      return /^(token|access_token|app_token|secret)$/i.test(decodeSafely(name)) ? `${name}=${REDACTED}` : pair;
    })
    .join('&');
  return `${safePath}?${safeQuery}`;
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at === -1 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

function decodeSafely(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

interface LoggedRequest {
  method?: string;
  url?: string;
  headers?: Record<string, unknown>;
  host?: string;
  hostname?: string;
  ip?: string;
  /** The client as the trusted proxies report it (src/http/client-address.ts). */
  client?: { address: string };
  socket?: { remotePort?: number };
}

/** Fastify's request serializer, with the URL redacted. */
function serializeRequest(request: LoggedRequest): Record<string, unknown> {
  return {
    method: request.method,
    url: request.url === undefined ? undefined : redactUrl(request.url),
    host: request.host ?? request.hostname,
    remoteAddress: request.client?.address ?? request.ip,
    remotePort: request.socket?.remotePort,
  };
}

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: { paths: REDACT_PATHS, censor: REDACTED },
    serializers: { req: serializeRequest as (value: unknown) => unknown },
  };
}

export type LogFormat = 'pretty' | 'json';
export const LOG_FORMATS: readonly LogFormat[] = ['pretty', 'json'];

/** Members of a request's line (src/http/access-log.ts) that its pretty message already says. */
const SAID_IN_THE_MESSAGE = ['method', 'url', 'status', 'duration_ms'];

/** Where the process's log lines go: standard output, in the given format. */
export async function logDestination(format: LogFormat): Promise<DestinationStream> {
  if (format === 'json') return pino.destination({ dest: 1, sync: true });
  const { default: pretty } = await import('pino-pretty');
  return pretty({
    destination: 1,
    sync: true,
    colorize: process.stdout.isTTY === true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: ['pid', 'hostname', ...SAID_IN_THE_MESSAGE].join(','),
    // The other members (request id, client, a job's kind, …) follow on the same line.
    singleLine: true,
  });
}
