import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import compress from '@fastify/compress';
import type { FastifyInstance, FastifyReply, FastifyRequest, onSendHookHandler } from 'fastify';

// Answers are compressed with brotli or gzip when the client asks for it (Accept-Encoding), three ways:
//  - JSON and text answers of the API, by @fastify/compress, from COMPRESSION_THRESHOLD bytes up: below
//    it the bytes saved are not worth the CPU, and a small answer pays only a header check. Dynamic
//    answers use brotli quality 1 and gzip level 1: measured on a 3.9 KB redemption answer, brotli 1
//    takes 24 µs of CPU for 1,133 bytes, brotli 4 (the plugin's default) 86 µs for 1,022 bytes, gzip 6
//    42 µs — the hot path (POST /v1/redemptions) pays about what serialising the answer costs.
//  - The console's and cockpit's built assets, compressed once at build time (scripts/build-web.ts writes
//    .br and .gz next to each) and served as they are by @fastify/static (src/http/routes/console/assets.ts).
//  - Fixed bodies (/openapi.json, /docs and its script): compressed once, on first use, and kept
//    (PrecompressedBody below).
// Never compressed: a route marked `compress: false` — streamed downloads (an export's CSV file keeps its
// Content-Length and is sent as stored) and images (PNG is compressed already). Request bodies are never
// decompressed: a compressed upload would get past the body limits as a zip bomb.

export const COMPRESSION_THRESHOLD = 1024;

/** Content types worth compressing: text, JSON, JavaScript, CSS, XML (and SVG). Not images or archives. */
const COMPRESSIBLE = /^text\/(?!event-stream)|[+/]json(?:;|$)|[+/]xml(?:;|$)|^application\/javascript(?:;|$)/;

export async function installCompression(app: FastifyInstance): Promise<void> {
  // Registered before the plugin's own hook, so on each route its onSend runs after the plugin's: an answer
  // that would have been compressed for a client asking for it says it varies by Accept-Encoding even when
  // this client did not ask (a shared cache must not hand the plain bytes to everyone, nor the reverse).
  app.addHook('onRoute', (route) => {
    if (route.compress === false) return;
    const hooks = route.onSend === undefined ? [] : Array.isArray(route.onSend) ? route.onSend : [route.onSend];
    route.onSend = [...hooks, varyWhenCompressible];
  });
  await app.register(compress, {
    global: true,
    globalDecompression: false,
    encodings: ['br', 'gzip'],
    threshold: COMPRESSION_THRESHOLD,
    customTypes: COMPRESSIBLE,
    brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } },
    zlibOptions: { level: 1 },
  });
}

const varyWhenCompressible: onSendHookHandler = (_request, reply, payload, done) => {
  if (payload !== null && payload !== undefined && !reply.hasHeader('content-encoding') && COMPRESSIBLE.test(String(reply.getHeader('content-type') ?? 'application/json'))) {
    const size = typeof payload === 'string' || Buffer.isBuffer(payload) ? Buffer.byteLength(payload) : Infinity;
    if (size >= COMPRESSION_THRESHOLD) addVary(reply);
  }
  done(null, payload);
};

/** Adds Accept-Encoding to the answer's Vary (kept with what other hooks put there, e.g. Origin). */
export function addVary(reply: FastifyReply): void {
  const current = reply.getHeader('vary');
  const values = (Array.isArray(current) ? current.join(',') : current === undefined ? '' : String(current))
    .split(',')
    .map((value) => value.trim())
    .filter((value) => value !== '');
  if (values.some((value) => value === '*' || value.toLowerCase() === 'accept-encoding')) return;
  reply.header('vary', [...values, 'Accept-Encoding'].join(', '));
}

export type Encoding = 'br' | 'gzip';

/**
 * The encoding to answer with: brotli or gzip as the client's Accept-Encoding allows (its q-values
 * respected, brotli preferred at equal weight), or null for the plain bytes.
 */
export function acceptedEncoding(header: string | string[] | undefined): Encoding | null {
  if (header === undefined) return null;
  const weights = new Map<string, number>();
  for (const part of (Array.isArray(header) ? header.join(',') : header).toLowerCase().split(',')) {
    const [name = '', ...params] = part.split(';').map((text) => text.trim());
    if (name === '') continue;
    const q = params.find((param) => param.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    weights.set(name === 'x-gzip' ? 'gzip' : name, Number.isFinite(weight) ? weight : 0);
  }
  const weightOf = (name: Encoding) => weights.get(name) ?? weights.get('*') ?? 0;
  const br = weightOf('br');
  const gz = weightOf('gzip');
  if (br <= 0 && gz <= 0) return null;
  return br >= gz ? 'br' : 'gzip';
}

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

interface Encoded {
  identity: Buffer;
  br: Buffer;
  gzip: Buffer;
}

/**
 * A body that never changes while the process runs (the OpenAPI document, the reference page and its
 * script): made and compressed on first use, off the event loop (zlib's thread pool), and kept; every
 * later answer sends the kept bytes. Brotli quality 9, not 11: for the 1.1 MB Redoc bundle 11 saves 8 %
 * more but takes 3 s instead of 0.2 s, which the first visitor of /docs would wait.
 */
export class PrecompressedBody {
  private encoded: Promise<Encoded> | null = null;

  constructor(private readonly make: () => string | Buffer | Promise<string | Buffer>) {}

  /** The plain bytes (e.g. for a page built from the document). */
  async plain(): Promise<Buffer> {
    return (await this.load()).identity;
  }

  async send(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const encoded = await this.load();
    const encoding = acceptedEncoding(request.headers['accept-encoding']);
    addVary(reply);
    if (encoding === null) return reply.header('content-length', encoded.identity.length).send(encoded.identity);
    const body = encoded[encoding];
    return reply.header('content-encoding', encoding).header('content-length', body.length).send(body);
  }

  private load(): Promise<Encoded> {
    this.encoded ??= (async () => {
      const made = await this.make();
      const identity = typeof made === 'string' ? Buffer.from(made, 'utf8') : made;
      const [br, gzip] = await Promise.all([
        brotli(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_SIZE_HINT]: identity.length } }),
        gzipped(identity, { level: 9 }),
      ]);
      return { identity, br, gzip };
    })();
    // A failure is not kept: the next request tries again.
    this.encoded.catch(() => {
      this.encoded = null;
    });
    return this.encoded;
  }
}
