import http from 'node:http';
import { serverHeaders } from '../scripts/lib/keys.ts';
import type { ServerProcess } from '../scripts/lib/server-process.ts';

// The first page of the voucher and customer lists, one request at a time on a kept-alive connection, so
// the time is the request's own (no queue behind other connections): an upper bound of the database time
// the page costs. Each answer's `total` is read too: it must be the number of rows the seeder wrote.

const WARMUP = 20;
const REQUESTS = 200;

export interface FirstPageTiming {
  path: string;
  /** `total` of the last answer. */
  total: number;
  requests: number;
  p50: number;
  p99: number;
}

function get(url: URL, path: string, agent: http.Agent): Promise<{ ms: number; body: string }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const request = http.request({ host: url.hostname, port: url.port, method: 'GET', path, headers: serverHeaders(), agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        if (response.statusCode !== 200) reject(new Error(`GET ${path}: ${response.statusCode} ${body.slice(0, 200)}`));
        else resolve({ ms: performance.now() - started, body });
      });
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end();
  });
}

export async function timeFirstPages(server: ServerProcess): Promise<FirstPageTiming[]> {
  const url = new URL(server.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const timings: FirstPageTiming[] = [];
  try {
    for (const path of ['/v1/vouchers', '/v1/customers']) {
      for (let i = 0; i < WARMUP; i++) await get(url, path, agent);
      const latencies: number[] = [];
      let body = '';
      for (let i = 0; i < REQUESTS; i++) {
        const answer = await get(url, path, agent);
        latencies.push(answer.ms);
        body = answer.body;
      }
      const sorted = Float64Array.from(latencies).sort();
      const pick = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
      timings.push({ path, total: Number((JSON.parse(body) as { total: unknown }).total), requests: REQUESTS, p50: pick(50), p99: pick(99) });
    }
  } finally {
    agent.destroy();
  }
  return timings;
}
