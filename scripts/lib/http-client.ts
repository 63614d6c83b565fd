import assert from 'node:assert/strict';
import http, { type IncomingHttpHeaders } from 'node:http';
import { parseJson, preview } from './json.ts';
import { serverHeaders } from './keys.ts';

// HTTP through node:http rather than fetch: the reliability sweeps need what fetch refuses (bodies on
// GET, any Content-Type or none, Latin-1 header bytes, duplicated headers), and its attacks need many
// sockets open at once so requests really overlap inside the server.

export interface HttpRequest {
  method: string;
  /** Path and query string, sent as given (no re-encoding). */
  path: string;
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
}

export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The body parsed as JSON, or undefined. */
  body: unknown;
}

export class HttpClient {
  readonly base: URL;
  readonly #agent: http.Agent;

  constructor(baseUrl: string, options: { maxSockets?: number } = {}) {
    this.base = new URL(baseUrl);
    this.#agent = new http.Agent({ keepAlive: true, maxSockets: options.maxSockets ?? 64 });
  }

  async request(req: HttpRequest): Promise<HttpResponse> {
    try {
      return await this.#send(req);
    } catch (error) {
      // A kept-alive socket the server closed in the meantime fails on first use; node marks the request
      // `reusedSocket` for exactly this case. That says nothing about the server, so send it again once.
      if (error instanceof ReusedSocketError) return this.#send(req);
      throw error instanceof ReusedSocketError ? error.cause : error;
    }
  }

  #send(req: HttpRequest): Promise<HttpResponse> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | string[]> = { ...(req.headers ?? {}) };
      const body = req.body === undefined ? undefined : Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body, 'utf8');
      if (body !== undefined && !hasHeader(headers, 'content-length') && !hasHeader(headers, 'transfer-encoding')) {
        headers['content-length'] = String(body.length);
      }
      const outgoing = http.request(
        { host: this.base.hostname, port: this.base.port, method: req.method, path: req.path, headers, agent: this.#agent },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: parseJson(text) });
          });
        },
      );
      outgoing.on('error', (error: NodeJS.ErrnoException) => {
        if (outgoing.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) reject(new ReusedSocketError(error));
        else reject(error);
      });
      if (body !== undefined) outgoing.end(body);
      else outgoing.end();
    });
  }

  /** JSON in, JSON out, with the given credential headers. */
  json(method: string, path: string, headers: Record<string, string>, json?: unknown): Promise<HttpResponse> {
    return this.request({
      method,
      path,
      headers: json === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    });
  }

  close(): void {
    this.#agent.destroy();
  }
}

class ReusedSocketError extends Error {
  constructor(override readonly cause: Error) {
    super(cause.message);
  }
}

function hasHeader(headers: Record<string, unknown>, name: string): boolean {
  return Object.keys(headers).some((k) => k.toLowerCase() === name);
}

/** A credentialed JSON client: set-up and polling through the public API, as an integration does it. */
export class Api {
  constructor(
    readonly http: HttpClient,
    readonly headers: Record<string, string> = serverHeaders(),
  ) {}

  call(method: string, path: string, json?: unknown): Promise<HttpResponse> {
    return this.http.json(method, path, this.headers, json);
  }

  /** The call must answer 2xx; the parsed body is returned. */
  async ok(method: string, path: string, json?: unknown): Promise<unknown> {
    const res = await this.call(method, path, json);
    assert.ok(res.status >= 200 && res.status < 300, `${method} ${path} ${preview(json ?? '')} → ${res.status} ${preview(res.text)}`);
    return res.body;
  }

  with(headers: Record<string, string>): Api {
    return new Api(this.http, headers);
  }
}
