import type { FastifyInstance } from 'fastify';

// What the rest of the process sees of tracing; ./opentelemetry.ts implements it and ./tracing.ts loads
// that implementation on demand, so neither of those two imports the other's module for the type.

export interface Tracing {
  /** One SERVER span per request (continuing a caller's `traceparent`), current while the request runs. */
  installRequestSpans(app: FastifyInstance): void;
  /**
   * Runs `work` inside a child span of the current one (e.g. one SQL statement: `span('db.query',
   * { 'db.system.name': 'postgresql' }, run)`); the span ends when `work` settles and records its error.
   */
  span<T>(name: string, attributes: Record<string, string | number | boolean>, work: () => Promise<T>): Promise<T>;
  /** Sends the spans still buffered and stops. */
  shutdown(): Promise<void>;
}
