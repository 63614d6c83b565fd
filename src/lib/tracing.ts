import type { TracingConfig } from '../config.ts';
import type { Tracing } from './tracing-api.ts';

// Optional OpenTelemetry tracing (README "Observability"). Off unless an OTLP endpoint is configured, and
// then the @opentelemetry packages are never loaded: this module imports only types, and the SDK lives in
// ./opentelemetry.ts, imported on demand.

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
