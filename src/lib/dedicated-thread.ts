import { Worker } from 'node:worker_threads';

// A worker thread that runs one kind of blocking call, one at a time, for this process. libuv's thread
// pool (four threads by default) serves every asynchronous fs call, DNS lookup and crypto call alike, so
// work that requests can start in bulk (password hashing at sign-in, file reads) can fill it and make
// everything else queue behind it — the WAL fsync every SQLite answer waits for included. A call that
// must never wait behind such work gets a thread of its own.
//
// The thread runs `handler`, the source text of a plain JavaScript function of one structured-clonable
// argument (it runs in a script of its own, so it cannot close over anything in this module). The thread
// starts on first use, keeps the process alive only while calls are pending, and is started again if it
// ever dies.

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

const workerSource = (handler: string) => `
const { parentPort } = require('node:worker_threads');
const handle = (${handler});
parentPort.on('message', ({ id, input }) => {
  let answer;
  try {
    answer = { id, output: handle(input) };
  } catch (error) {
    answer = { id, error: { message: String((error && error.message) || error), code: error && error.code } };
  }
  parentPort.postMessage(answer);
});
`;

export class DedicatedThread<In, Out> {
  readonly #source: string;
  readonly #name: string;
  #worker: Worker | null = null;
  #nextId = 0;
  readonly #pending = new Map<number, Pending>();

  /** `handler`: the source of `(input) => output`, run synchronously in the thread. */
  constructor(name: string, handler: string) {
    this.#name = name;
    this.#source = workerSource(handler);
  }

  /** Calls sent and not yet answered. */
  get pending(): number {
    return this.#pending.size;
  }

  run(input: In): Promise<Out> {
    const worker = this.#started();
    const id = this.#nextId++;
    return new Promise<Out>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      if (this.#pending.size === 1) worker.ref();
      worker.postMessage({ id, input });
    });
  }

  #started(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(this.#source, { eval: true, name: this.#name });
    worker.unref();
    worker.on('message', (message: { id: number; output?: unknown; error?: { message: string; code?: string } }) => {
      const call = this.#pending.get(message.id);
      if (!call) return;
      this.#pending.delete(message.id);
      if (this.#pending.size === 0) worker.unref();
      if (message.error) call.reject(Object.assign(new Error(message.error.message), message.error.code ? { code: message.error.code } : {}));
      else call.resolve(message.output);
    });
    const fail = (error: Error) => {
      if (this.#worker !== worker) return;
      this.#worker = null;
      const calls = [...this.#pending.values()];
      this.#pending.clear();
      for (const call of calls) call.reject(error);
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`${this.#name} thread exited (code ${code})`)));
    this.#worker = worker;
    return worker;
  }
}
