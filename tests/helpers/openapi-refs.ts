// Our OpenAPI document declares each named schema once (components/schemas) and shared error answers once
// (components/responses), and refers to them with `$ref`. Tests that walk the schemas of operations read
// the document with those references replaced by what they stand for.

type Json = unknown;

/** A copy of the OpenAPI document with every local `$ref` replaced by its target, recursively. */
export function withRefsInlined<T>(doc: T): T {
  const root = doc as { components?: Record<string, Record<string, Json>> };
  const target = (ref: string): Json => {
    const [, section, name] = /^#\/components\/([^/]+)\/(.+)$/.exec(ref) ?? [];
    const found = section && name ? root.components?.[section]?.[name] : undefined;
    if (found === undefined) throw new Error(`the document refers to ${ref}, which it does not declare`);
    return found;
  };
  const inline = (node: Json, depth: number): Json => {
    if (depth > 64) throw new Error('the document refers to its schemas in a circle');
    if (Array.isArray(node)) return node.map((item) => inline(item, depth + 1));
    if (typeof node !== 'object' || node === null) return node;
    const record = node as Record<string, Json>;
    if (typeof record.$ref === 'string' && record.$ref.startsWith('#/components/')) return inline(target(record.$ref), depth + 1);
    return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, inline(value, depth + 1)]));
  };
  return { ...(doc as object), paths: inline((doc as { paths: Json }).paths, 0) } as T;
}
