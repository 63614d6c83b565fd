import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';

// A CSV upload refused for its header (README "CSV imports") while the rest of the multipart body is
// still on its way: the refusal is a 400 in the standard error body whatever the timing, nothing stays
// staged, and the connection is left usable or closed cleanly. The refusal comes while the file part is
// being parsed, before the form's closing boundary has arrived; the client here sends the form in
// chunks, the header row first, and pauses before the rest.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const BOUNDARY = 'slow-upload-boundary-7f3a';
/** A white-spaced name for a column that is no standard one: a metadata key, refused for every kind. */
const REFUSED_HEADER = 'Code,Source_id,favourite brand';
/**
 * The header and a first row. The CSV parser reads a few characters past a line's end before it hands
 * the line on, so a header sent alone is read only with the rest of the body, and is refused after the
 * whole form has arrived; with a row behind it, it is refused while the form is still arriving.
 */
const REFUSED_START = `${REFUSED_HEADER}\nC-1,s-1,blue\n`;

interface Answer {
  status: number;
  body: Json;
  /** Milliseconds from the first byte sent to the answer's last. */
  ms: number;
}

describe('CSV uploads refused while their body is still arriving', () => {
  let t: TestApp;
  let routes: string[];

  before(async () => {
    t = await startTestApp();
    const campaign = await t.request('POST', '/v1/campaigns', {
      json: { name: 'Slow uploads', campaign_type: 'DISCOUNT_COUPONS', type: 'STATIC', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 5 } } },
    });
    assert.equal(campaign.status, 200, campaign.text);
    // Every importCSV route the server documents, its path parameter filled with that campaign.
    const document = await t.request('GET', '/openapi.json');
    routes = Object.keys(document.body.paths as Record<string, unknown>)
      .filter((path) => path.endsWith('/importCSV'))
      .map((path) => path.replace('{campaignId}', campaign.body.id as string));
    assert.equal(routes.length, 5, routes.join(', '));
  });
  after(() => t.close());

  /**
   * Posts a multipart form with node:http, chunked: the part's head and `firstChunk`, then after
   * `pauseMs` the rest of the file and the closing boundary (never, when pauseMs is null).
   */
  function slowUpload(path: string, firstChunk: string, pauseMs: number | null, rest = 'more,rows,here\n'): Promise<Answer> {
    const started = performance.now();
    return new Promise((resolve, reject) => {
      const req = httpRequest(`${t.url}${path}`, {
        method: 'POST',
        agent: false,
        headers: { ...t.serverHeaders(), 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      });
      let answered = false;
      const timer =
        pauseMs === null
          ? undefined
          : setTimeout(() => {
              if (!req.destroyed) req.end(`${rest}\r\n--${BOUNDARY}--\r\n`);
            }, pauseMs);
      req.on('response', (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          answered = true;
          clearTimeout(timer);
          // The client that never finishes its body goes away once it has the answer.
          if (pauseMs === null) req.destroy();
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(text), ms: performance.now() - started });
        });
      });
      // Once the answer has come, the server may close the connection under the rest of the body.
      req.on('error', (error) => {
        if (!answered) reject(error);
      });
      req.write(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="slow.csv"\r\nContent-Type: text/csv\r\n\r\n${firstChunk}`);
    });
  }

  function assertRefusal(answer: Answer, route: string, details: RegExp): void {
    assert.equal(answer.status, 400, `${route}: ${JSON.stringify(answer.body)}`);
    assert.deepEqual(Object.keys(answer.body).sort(), ['code', 'details', 'key', 'message', 'request_id'], route);
    assert.equal(answer.body.code, 400);
    assert.equal(answer.body.key, 'invalid_payload');
    assert.match(answer.body.details, details, route);
  }

  async function nothingLeft(): Promise<void> {
    // A refused upload's rows are deleted after the answer; give that a moment.
    for (let i = 0; i < 50; i++) {
      const rows = await t.db.db.selectFrom('csv_import_rows').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      const uploads = await t.db.db.selectFrom('csv_uploads').select('id').execute();
      if (Number(rows.n) === 0 && uploads.length === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.fail('a refused upload left staged rows or its mark');
  }

  test('the header refused, the closing boundary 300 ms late: 400 on every importCSV route', async () => {
    for (const route of routes) {
      for (let attempt = 0; attempt < 3; attempt++) {
        assertRefusal(await slowUpload(route, REFUSED_START, 300), route, /'favourite brand'.*cannot contain white space/);
      }
    }
    await nothingLeft();
  });

  test('the header and some rows, then the rest of the file and the boundary right away or a little later', async () => {
    const rows = Array.from({ length: 50 }, (_, i) => `C-${i},s-${i},blue`).join('\n');
    for (const route of routes) {
      for (const pauseMs of [0, 5, 50]) {
        assertRefusal(await slowUpload(route, `${REFUSED_HEADER}\n${rows}\n`, pauseMs), `${route} (${pauseMs} ms)`, /cannot contain white space/);
      }
    }
    await nothingLeft();
  });

  test('a client that never sends the rest of its body gets the refusal at once, not at the request timeout', async () => {
    for (const route of routes) {
      const answer = await slowUpload(route, REFUSED_START, null);
      assertRefusal(answer, route, /cannot contain white space/);
      assert.ok(answer.ms < 5_000, `${route}: answered after ${Math.round(answer.ms)} ms`);
    }
    await nothingLeft();
  });

  test("Node's fetch streaming the file with a pause before the closing boundary", async () => {
    const encoder = new TextEncoder();
    for (const route of routes) {
      for (let attempt = 0; attempt < 3; attempt++) {
        let step = 0;
        const body = new ReadableStream<Uint8Array>({
          async pull(controller) {
            step++;
            if (step === 1) {
              controller.enqueue(encoder.encode(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="slow.csv"\r\nContent-Type: text/csv\r\n\r\n${REFUSED_START}`));
              return;
            }
            await new Promise((resolve) => setTimeout(resolve, 300));
            controller.enqueue(encoder.encode(`a,b,c\r\n--${BOUNDARY}--\r\n`));
            controller.close();
          },
        });
        const res = await fetch(`${t.url}${route}`, {
          method: 'POST',
          headers: { ...t.serverHeaders(), 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
          body,
          duplex: 'half',
        } as RequestInit);
        assertRefusal({ status: res.status, body: await res.json(), ms: 0 }, route, /cannot contain white space/);
      }
    }
    await nothingLeft();
  });

  test('the server goes on serving: a good upload on every route after the refused ones', async () => {
    for (const route of routes) {
      const header = route.includes('/products/') ? 'name,source_id' : route.includes('/skus/') ? 'product_id,source_id' : 'Code,Source_id';
      const answer = await slowUpload(route, `${header}\n`, 100, 'a,b\n');
      assert.ok([200, 202].includes(answer.status), `${route}: ${JSON.stringify(answer.body)}`);
      assert.match(answer.body.async_action_id, /^aa_/);
    }
  });
});
