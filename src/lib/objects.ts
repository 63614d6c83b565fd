// Copies with members added or replaced, for hot paths.
//
// On Node.js 20 (V8 11.3) how an object is built decides how fast it is afterwards:
// - every member an object literal writes after a spread — `{ ...row, id, at }` — costs 1–2.5 µs, and
//   members set on a spread copy afterwards cost as much;
// - an object that gains more than about 16 members one at a time (Object.assign onto `{}`, a loop of
//   assignments, better-sqlite3's rows of 20 columns or more) falls back to dictionary mode, where every
//   later copy, member read and JSON.stringify is slower. Copying a 22-member order in dictionary mode
//   with Object.assign took 11.6 µs, and stringifying the copy 4.8 µs more; a redemption made about ten
//   such copies (measured here);
// - an object literal that names its members is created in fast mode at once.
// So withMembers compiles, once per pair of member lists, a function that returns such a literal, and
// keeps it for every later copy of that shape: 3.7 µs for that order copy, then 3.7 µs to stringify it.
// Small copies, which stay in fast mode anyway, are still made by Object.assign.
//
// Bases here are objects Punchcard built: rows read from its tables, objects it rendered. Their members
// are own, enumerable, string-keyed data members, which is all a copy carries.

type Builder = (base: object, members: object) => object;

interface Shape {
  baseKeys: readonly string[];
  memberKeys: readonly string[];
  build: Builder;
}

/** Shapes come from code, so there are few; a cap keeps an unforeseen source of shapes from growing it. */
const MAX_SHAPES = 512;
const SMALL = 16;
/**
 * Shapes by a short signature (the number of base members, the first and last of them, the member names):
 * joining every name of a wide base on every copy cost more than the copy. Shapes whose signatures agree
 * share a bucket, searched by comparing the whole lists.
 */
const shapes = new Map<string, Shape[]>();
let shapeCount = 0;

/** `{ ...base, ...members }`: base's members in their order with members' values, then members' new ones. */
export function withMembers<B extends object, M extends object>(base: B, members: M): Omit<B, keyof M> & M {
  const baseKeys = Object.keys(base);
  const memberKeys = Object.keys(members);
  // A copy this small stays in fast mode (up to 19 members here), and Object.assign makes it in a third
  // of the time the compiled literal takes with its name lookup.
  // Object.assign and a literal would both take a member named __proto__ for the prototype; a spread
  // copies it as a member.
  if (baseKeys.includes('__proto__') || memberKeys.includes('__proto__')) return { ...base, ...members };
  if (baseKeys.length + memberKeys.length <= SMALL) return Object.assign({}, base, members);
  const signature = `${baseKeys.length}\u0000${baseKeys[0]}\u0000${baseKeys[baseKeys.length - 1]}\u0000${memberKeys.join('\u0000')}`;
  let bucket = shapes.get(signature);
  let shape = bucket === undefined ? undefined : findShape(bucket, baseKeys, memberKeys);
  if (shape === undefined) {
    if (shapeCount >= MAX_SHAPES) return { ...base, ...members };
    shape = { baseKeys, memberKeys, build: compile(baseKeys, memberKeys) };
    if (bucket === undefined) shapes.set(signature, (bucket = []));
    bucket.push(shape);
    shapeCount += 1;
  }
  return shape.build(base, members) as Omit<B, keyof M> & M;
}

function findShape(bucket: readonly Shape[], baseKeys: readonly string[], memberKeys: readonly string[]): Shape | undefined {
  for (const shape of bucket) if (sameKeys(shape.baseKeys, baseKeys) && sameKeys(shape.memberKeys, memberKeys)) return shape;
  return undefined;
}

/**
 * `(b, m) => ({ "k1": b["k1"], "k2": m["k2"], … })`. Names are written as JSON strings, so any name is
 * a quoted member name; `__proto__`, which a literal would take for the prototype, never comes here.
 */
function compile(baseKeys: readonly string[], memberKeys: readonly string[]): Builder {
  const replaced = new Set(memberKeys);
  const parts = baseKeys.map((key) => `${JSON.stringify(key)}: ${replaced.has(key) ? 'm' : 'b'}[${JSON.stringify(key)}]`);
  const inBase = new Set(baseKeys);
  for (const key of memberKeys) if (!inBase.has(key)) parts.push(`${JSON.stringify(key)}: m[${JSON.stringify(key)}]`);
  return new Function('b', 'm', `return { ${parts.join(', ')} };`) as Builder;
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * `row` without its member `key`, and that member's value, for a row just read from the database with one
 * extra column selected last (`selectAll()` then `.select(…)`). The row is changed in place: deleting the
 * member an object gained last is the one deletion V8 undoes without leaving the object's fast layout,
 * where `const { [key]: value, ...rest } = row` copies every member (14–21 µs for a 38-column voucher row
 * on Node.js 20, measured here; 5 % of a GET voucher). Another member still works, only more slowly.
 */
export function detachMember<R extends object, K extends keyof R>(row: R, key: K): { row: Omit<R, K>; value: R[K] } {
  const value = row[key];
  delete (row as Partial<R>)[key];
  return { row, value };
}
