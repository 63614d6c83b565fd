import type { FastifyInstance } from 'fastify';
import type { TracingConfig } from '../config.ts';

// Optional OpenTelemetry tracing (README "Observability"). Off unless an OTLP endpoint is configured, and
// then the @opentelemetry packages are never loaded: this module imports only types, and the SDK lives in
// ./opentelemetry.ts, imported on demand.

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

let active: Tracing | null = null;

/** The process's tracing when it is on, for code that adds spans of its own; null when off. */
export function activeTracing(): Tracing | null {
  return active;
}

export async function startTracing(config: TracingConfig): Promise<Tracing> {
  const { startOpenTelemetry } = await import('./opentelemetry.ts');
  active = startOpenTelemetry(config);
  return active;
}
