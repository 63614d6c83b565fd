import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

// A real HTTP endpoint for webhook tests: records every request it gets, and answers per path as the test
// says (2xx, an error status, a redirect, or slowly). It can be shut down (connections refused) and started
// again on the same port. It listens on 127.0.0.1, which webhook targets reach only when the app's config
// allows it: see RECEIVER_NETWORKS.

export interface ReceivedRequest {
  path: string;
  body: string;
  headers: IncomingHttpHeaders;
  /** What this receiver answered. */
  status: number;
}

/** `body`: what the answer carries ('ok' when absent). */
export type Behaviour = { status: number; delayMs?: number; location?: string; body?: string };

/** The allow-list (PUNCHCARD_WEBHOOK_ALLOW_NETWORKS) an app needs to deliver to a receiver. */
export const RECEIVER_NETWORKS = ['127.0.0.0/8'];

export class WebhookReceiver {
  readonly received: ReceivedRequest[] = [];
  #server: Server | null = null;
  #port = 0;
  #behaviours = new Map<string, Behaviour>();
  #default: Behaviour = { status: 200 };

  /** How requests to `path` are answered from now on (other paths: the default). */
  answer(path: string, behaviour: Behaviour): void {
    this.#behaviours.set(path, behaviour);
  }

  answerAll(behaviour: Behaviour): void {
    this.#default = behaviour;
    this.#behaviours.clear();
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.#port}${path}`;
  }

  /** Requests to `path` that this receiver accepted (answered 2xx), in arrival order. */
  accepted(path: string): ReceivedRequest[] {
    return this.received.filter((r) => r.path === path && r.status >= 200 && r.status < 300);
  }

  to(path: string): ReceivedRequest[] {
    return this.received.filter((r) => r.path === path);
  }

  async start(): Promise<void> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = (req.url ?? '/').split('?')[0] ?? '/';
        const behaviour = this.#behaviours.get(path) ?? this.#default;
        const record: ReceivedRequest = { path, body: Buffer.concat(chunks).toString('utf8'), headers: req.headers, status: behaviour.status };
        const reply = () => {
          this.received.push(record);
          res.writeHead(behaviour.status, { 'content-type': 'text/plain', ...(behaviour.location ? { location: behaviour.location } : {}) }).end(behaviour.body ?? 'ok');
        };
        if (behaviour.delayMs) setTimeout(reply, behaviour.delayMs);
        else reply();
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.#port, '127.0.0.1', () => resolve());
    });
    this.#port = (server.address() as AddressInfo).port;
    this.#server = server;
  }

  /** Stops listening; later deliveries find the port closed. */
  async stop(): Promise<void> {
    const server = this.#server;
    if (!server) return;
    this.#server = null;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
