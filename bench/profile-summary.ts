import { readFileSync } from 'node:fs';

// Summarises a V8 .cpuprofile (node --cpu-prof): self time and inclusive time per function, the view
// used to find where a scenario spends its server CPU.

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const file = process.argv[2];
const top = Number(process.argv[3] ?? 40);
const filter = process.argv[4];
if (!file) throw new Error('usage: tsx bench/profile-summary.ts <file.cpuprofile> [top] [url filter]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const self = new Map<number, number>();
profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const label = (n: ProfileNode) => `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*\/(src|node_modules)\//, '$1/')}:${n.callFrame.lineNumber + 1}`;
const selfBy = new Map<string, number>();
const totalBy = new Map<string, number>();
let total = 0;
for (const [id, t] of self) {
  total += t;
  const node = byId.get(id);
  if (!node) continue;
  selfBy.set(label(node), (selfBy.get(label(node)) ?? 0) + t);
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const n = byId.get(at);
    if (!n) break;
    const l = label(n);
    if (seen.has(l)) continue;
    seen.add(l);
    totalBy.set(l, (totalBy.get(l) ?? 0) + t);
  }
}
const show = (title: string, map: Map<string, number>) => {
  process.stdout.write(`\n${title} (of ${(total / 1000).toFixed(0)} ms)\n`);
  for (const [l, t] of [...map].filter(([l]) => !filter || l.includes(filter)).sort((a, b) => b[1] - a[1]).slice(0, top)) {
    process.stdout.write(`${((t / total) * 100).toFixed(1).padStart(5)} %  ${l}\n`);
  }
};
show('self time', selfBy);
show('inclusive time', totalBy);

// Self time by area: where the busy time of the window went, in the terms the README's Benchmarks use.
// Native calls of better-sqlite3 (run/get/all/iterate/exec) are SQLite itself, split into the COMMIT of a
// group (writing the WAL) and every other statement; the probe's wrapper counts as the statement it wraps.
const hasAncestor = (id: number, test: (n: ProfileNode) => boolean) => {
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const n = byId.get(at);
    if (n && test(n)) return true;
  }
  return false;
};
const SQLITE_CALLS = new Set(['run', 'get', 'all', 'iterate', 'exec']);
function areaOf(id: number, node: ProfileNode): string | null {
  const { functionName: fn, url } = node.callFrame;
  if (fn === '(idle)' || hasAncestor(id, (n) => n.callFrame.url === 'node:inspector')) return null; // idle, or the profiler stopping
  if ((url === '' && SQLITE_CALLS.has(fn)) || url.includes('server-probe')) {
    return hasAncestor(id, (n) => n.callFrame.functionName.includes('commitGroup')) ? 'SQLite: COMMIT of a group (WAL writes)' : 'SQLite: statements';
  }
  if (fn === '(garbage collector)') return 'garbage collection';
  if (url.includes('/node_modules/')) return `library: ${url.replace(/^.*\/node_modules\//, '').split('/')[0]}`;
  // The server runs src/ compiled into .build/server-*/src/ (bin/punchcard.js): the same paths, ending in .js.
  if (/\/src\/store\/json\.[jt]s$/.test(url)) return 'JSON text of stored columns (src/store/json.ts)';
  if (/\/src\/lib\/json-text\.[jt]s$/.test(url)) return 'answer JSON.stringify (src/lib/json-text.ts)';
  const layer = /\/src\/([a-z-]+)\//.exec(url)?.[1];
  if (layer) return `src/${layer}`;
  return 'Node.js: HTTP, sockets, timers, other natives';
}
const byArea = new Map<string, number>();
let busy = 0;
for (const [id, t] of self) {
  const node = byId.get(id);
  const area = node ? areaOf(id, node) : null;
  if (area === null) continue;
  busy += t;
  byArea.set(area, (byArea.get(area) ?? 0) + t);
}
process.stdout.write(`\nbusy time by area (of ${(busy / 1000).toFixed(0)} ms)\n`);
for (const [area, t] of [...byArea].sort((a, b) => b[1] - a[1])) process.stdout.write(`${((t / busy) * 100).toFixed(1).padStart(5)} %  ${area}\n`);

// SQLite's own time by the store function that sent the statement (the group's COMMIT by itself): which
// writes and reads of a request cost the most. Plumbing every statement passes through is skipped.
const PLUMBING = /\/src\/store\/(db|prepared|held-writes|connection-scope|delegating-driver|pipelining|savepoints)\.[jt]s$/;
function senderOf(id: number): string {
  for (let at = parent.get(id); at !== undefined; at = parent.get(at)) {
    const n = byId.get(at);
    if (!n) break;
    if (n.callFrame.functionName.includes('commitGroup')) return 'COMMIT of a group (WAL writes)';
    if (/\/src\//.test(n.callFrame.url) && !PLUMBING.test(n.callFrame.url)) return label(n);
  }
  return '(outside src/)';
}
const bySender = new Map<string, number>();
let sqliteTime = 0;
for (const [id, t] of self) {
  const node = byId.get(id);
  if (!node || node.callFrame.url !== '' || !SQLITE_CALLS.has(node.callFrame.functionName)) continue;
  if (hasAncestor(id, (n) => n.callFrame.url === 'node:inspector')) continue;
  sqliteTime += t;
  const sender = senderOf(id);
  bySender.set(sender, (bySender.get(sender) ?? 0) + t);
}
if (sqliteTime > 0) {
  process.stdout.write(`\nSQLite's own time by the function that sent the statement (of ${(sqliteTime / 1000).toFixed(0)} ms; % of busy time)\n`);
  for (const [sender, t] of [...bySender].sort((a, b) => b[1] - a[1]).slice(0, top)) process.stdout.write(`${((t / busy) * 100).toFixed(1).padStart(5)} %  ${sender}\n`);
}
