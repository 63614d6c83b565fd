// The part of autocannon's API the benchmark uses (the package ships no types of its own).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  export interface RawRequest {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
  }

  export interface Options {
    url: string;
    connections?: number;
    duration?: number;
    /** Total requests to send; duration is then ignored. */
    amount?: number;
    pipelining?: number;
    timeout?: number;
    requests?: Array<RawRequest & { setupRequest?: (request: RawRequest, context: Record<string, unknown>) => RawRequest }>;
  }

  export interface Histogram {
    average: number;
    p50: number;
    p99: number;
    max: number;
  }

  export interface Result {
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    latency: Histogram;
    requests: Histogram & { total: number };
    statusCodeStats: Record<string, { count: number }>;
  }

  export interface Instance extends EventEmitter {
    stop(): void;
    on(event: 'response', listener: (client: unknown, statusCode: number, resBytes: number, responseTime: number) => void): this;
    on(event: 'done', listener: (result: Result) => void): this;
  }

  function autocannon(options: Options, callback: (error: Error | null, result: Result) => void): Instance;
  export default autocannon;
}
