// Preloaded into a server under test (node --expose-gc --require <this file>): a full collection every
// second on the main thread, so the process's resident memory follows what it holds rather than how long
// V8 leaves garbage in the old space. Node 26's V8 lets that garbage reach about 150 MB under a busy
// import before collecting it, where Node 20's collected it within a few MB (csv-import-memory.test.ts).
const { isMainThread } = require('node:worker_threads');

if (isMainThread && typeof globalThis.gc === 'function') {
  setInterval(() => globalThis.gc(), 1000).unref();
}
