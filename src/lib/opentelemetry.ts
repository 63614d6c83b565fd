import { context, propagation, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import {
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_SERVICE_NAME,
  ATTR_URL_PATH,
} from '@opentelemetry/semantic-conventions';
import type { FastifyRequest } from 'fastify';
import type { TracingConfig } from '../config.ts';
import { redactUrl } from './logging.ts';
import type { Tracing } from './tracing-api.ts';

// The OpenTelemetry SDK, loaded only when tracing is configured (./tracing.ts). Spans go in batches to an
// OTLP/HTTP collector; the provider is registered globally with Node's AsyncLocalStorage context, so a
// span started anywhere during a request (./tracing.ts `span`) becomes a child of the request's span.

export function startOpenTelemetry(config: TracingConfig): Tracing {
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: config.serviceName }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: config.tracesUrl, headers: config.headers }))],
  });
  provider.register();
  const tracer = trace.getTracer('punchcard');

  return {
    installRequestSpans(app) {
      const spans = new WeakMap<FastifyRequest, Span>();
      // Callback style on purpose: the rest of the request runs inside `context.with`, so its spans nest.
      app.addHook('onRequest', (request, _reply, done) => {
        const parent = propagation.extract(context.active(), request.headers);
        const path = redactUrl(request.url.split('?')[0] ?? '/');
        const span = tracer.startSpan(
          request.method,
          { kind: SpanKind.SERVER, attributes: { [ATTR_HTTP_REQUEST_METHOD]: request.method, [ATTR_URL_PATH]: path, 'punchcard.request_id': request.id } },
          parent,
        );
        spans.set(request, span);
        context.with(trace.setSpan(parent, span), done);
      });
      const end = (request: FastifyRequest, status: number | null) => {
        const span = spans.get(request);
        if (!span) return;
        spans.delete(request);
        const route = request.routeOptions.url;
        if (route !== undefined) {
          span.setAttribute(ATTR_HTTP_ROUTE, route);
          span.updateName(`${request.method} ${route}`);
        }
        if (status !== null) span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
        if (status === null || status >= 500) span.setStatus({ code: SpanStatusCode.ERROR, ...(status === null ? { message: 'client went away' } : {}) });
        span.end();
      };
      app.addHook('onResponse', async (request, reply) => end(request, reply.statusCode));
      app.addHook('onRequestAbort', async (request) => end(request, null));
    },
    async span(name, attributes, work) {
      return tracer.startActiveSpan(name, { attributes }, async (span) => {
        try {
          return await work();
        } catch (error) {
          span.recordException(error instanceof Error ? error : String(error));
          span.setStatus({ code: SpanStatusCode.ERROR });
          throw error;
        } finally {
          span.end();
        }
      });
    },
    shutdown: () => provider.shutdown(),
  };
}
