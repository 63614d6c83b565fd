import type { ApplicableTo, ApplicableToEntry, ItemRef } from './definition.ts';

// Which order lines (and which units of them) a discount targets, from a rule set's `applicable_to`
// entries (promotions reference 3.6):
// - candidates: lines matching an included entry (every line for `included_all`, or when only exclusions
//   are given), minus lines matching any excluded entry; a line taken by an earlier included entry is
//   not offered to a later one;
// - `effect`: APPLY_TO_EVERY walks the candidates in request order, APPLY_FROM_CHEAPEST /
//   APPLY_FROM_MOST_EXPENSIVE walk them by unit price (ties keep request order), APPLY_TO_CHEAPEST /
//   APPLY_TO_MOST_EXPENSIVE take that one line only;
// - `target`: ITEM walks lines, UNIT walks individual units (counted from 1 within each line);
// - `skip_initially` n skips the first n lines/units of the walk, then every `repeat`-th one is taken
//   (the vendor example: from most expensive, skip 1, repeat 2 over $20, $15, $10, $5 takes $15 and $5);
// - `quantity_limit` caps the units taken per line, `aggregated_quantity_limit` across the entry's lines.

/** An order line as selection needs it; the index is its position in the request. */
export interface SelectableLine {
  productId: string | null;
  productSourceId: string | null;
  skuId: string | null;
  skuSourceId: string | null;
  quantity: number;
  /** Unit price in minor units, null when unknown. */
  price: number | null;
  amount: number | null;
  /** Ids of the product collections the line's product or SKU belongs to (resolved by the caller). */
  collectionIds: readonly string[];
}

export interface ItemTarget {
  /** Position of the line in the request's `items`. */
  index: number;
  /** Units of the line the discount covers. */
  units: number;
  /** Which units (1-based) when the entry targets units and the order has at most 1000 units; else null. */
  unitNumbers: number[] | null;
  /** The entry that selected the line; null for `included_all` or an unrestricted rule. */
  entry: ApplicableToEntry | null;
}

export interface ResultEntry extends ApplicableToEntry {
  order_item_indices: number[];
  order_item_units?: Array<{ index: number; units?: number[]; units_limit_exceeded?: boolean }>;
}

export interface ResultList {
  data: ResultEntry[];
  total: number;
  object: 'list';
  data_ref: 'data';
}

export interface ItemSelection {
  /**
   * False when the rule set names no targets at all: the discount is not limited to particular lines
   * (an item effect then applies to every line; reference 3.1 defaults the effect to APPLY_TO_ORDER).
   */
  restricted: boolean;
  targets: ItemTarget[];
  /** The included entries with the lines they covered, as validation results echo them. */
  applicable_to: ResultList;
  /** The excluded entries with the lines they removed. */
  inapplicable_to: ResultList;
}

/** Unit counting stops at this many units; beyond it only counts are given (vendor: `units_limit_exceeded`). */
export const MAX_LISTED_UNITS = 1000;

/** Whether a line is the product, SKU or collection member a reference names. */
export function lineMatchesRef(line: SelectableLine, ref: ItemRef): boolean {
  const id = typeof ref.id === 'string' && ref.id !== '' ? ref.id : null;
  const sourceId = typeof ref.source_id === 'string' && ref.source_id !== '' ? ref.source_id : null;
  switch (ref.object) {
    case 'product':
      return (id !== null && line.productId === id) || (sourceId !== null && line.productSourceId === sourceId);
    case 'sku':
      return (id !== null && line.skuId === id) || (sourceId !== null && line.skuSourceId === sourceId);
    case 'products_collection':
      return id !== null && line.collectionIds.includes(id);
  }
}

/** The unit price of a line: as sent or from the catalog, else derived from its amount. */
export function unitPrice(line: SelectableLine): number | null {
  if (line.price !== null) return line.price;
  if (line.amount !== null && line.quantity > 0) return line.amount / line.quantity;
  return null;
}

/** Lines by price, lines without a price last, ties in request order. */
function byPrice(lines: readonly SelectableLine[], indices: number[], descending: boolean): number[] {
  return [...indices].sort((a, b) => {
    const pa = unitPrice(lines[a] as SelectableLine);
    const pb = unitPrice(lines[b] as SelectableLine);
    if (pa === null || pb === null) return pa === pb ? a - b : pa === null ? 1 : -1;
    if (pa !== pb) return descending ? pb - pa : pa - pb;
    return a - b;
  });
}

/** Positions p of a walk that are taken: p ≥ skip and (p − skip) a multiple of repeat. */
function taken(position: number, skip: number, repeat: number): boolean {
  return position >= skip && (position - skip) % repeat === 0;
}

/** How many taken positions fall in [from, from + count). */
function countTaken(from: number, count: number, skip: number, repeat: number): number {
  const end = from + count; // exclusive
  const first = Math.max(from, skip);
  if (first >= end) return 0;
  const firstTaken = first + ((repeat - ((first - skip) % repeat)) % repeat);
  if (firstTaken >= end) return 0;
  return Math.floor((end - 1 - firstTaken) / repeat) + 1;
}

function selectForEntry(
  lines: readonly SelectableLine[],
  candidates: number[],
  entry: ApplicableToEntry | null,
  listUnits: boolean,
): ItemTarget[] {
  if (candidates.length === 0) return [];
  const effect = entry?.effect ?? 'APPLY_TO_EVERY';
  const unitTarget = entry?.target === 'UNIT';
  const skip = entry?.skip_initially ?? 0;
  const repeat = Math.max(1, entry?.repeat ?? 1);
  const quantityOf = (index: number) => Math.max(0, Math.floor((lines[index] as SelectableLine).quantity));

  let targets: ItemTarget[];
  if (effect === 'APPLY_TO_CHEAPEST' || effect === 'APPLY_TO_MOST_EXPENSIVE') {
    const index = byPrice(lines, candidates, effect === 'APPLY_TO_MOST_EXPENSIVE')[0] as number;
    targets = [
      unitTarget
        ? { index, units: Math.min(1, quantityOf(index)), unitNumbers: listUnits ? [1] : null, entry }
        : { index, units: quantityOf(index), unitNumbers: null, entry },
    ];
  } else {
    const walk =
      effect === 'APPLY_FROM_CHEAPEST'
        ? byPrice(lines, candidates, false)
        : effect === 'APPLY_FROM_MOST_EXPENSIVE'
          ? byPrice(lines, candidates, true)
          : candidates;
    targets = [];
    if (!unitTarget) {
      walk.forEach((index, position) => {
        if (taken(position, skip, repeat)) targets.push({ index, units: quantityOf(index), unitNumbers: null, entry });
      });
    } else {
      let position = 0;
      for (const index of walk) {
        const quantity = quantityOf(index);
        const units = countTaken(position, quantity, skip, repeat);
        if (units > 0) {
          let unitNumbers: number[] | null = null;
          if (listUnits) {
            unitNumbers = [];
            for (let u = 0; u < quantity; u++) if (taken(position + u, skip, repeat)) unitNumbers.push(u + 1);
          }
          targets.push({ index, units, unitNumbers, entry });
        }
        position += quantity;
      }
    }
  }

  // Unit caps: per line first, then across the entry in walk order.
  const perLine = entry?.quantity_limit ?? null;
  let budget = entry?.aggregated_quantity_limit ?? null;
  const capped: ItemTarget[] = [];
  for (const target of targets) {
    let units = perLine === null ? target.units : Math.min(target.units, perLine);
    if (budget !== null) {
      units = Math.min(units, budget);
      budget -= units;
    }
    if (units <= 0) continue;
    capped.push({ ...target, units, unitNumbers: target.unitNumbers?.slice(0, units) ?? null });
  }
  return capped;
}

function resultList(data: ResultEntry[]): ResultList {
  return { data, total: data.length, object: 'list', data_ref: 'data' };
}

/** An entry as results echo it, with the lines it covered (not `{ ...entry, order_item_indices }`: see src/lib/objects.ts). */
function withIndices(entry: ApplicableToEntry, indices: number[]): ResultEntry {
  // Object.assign rather than withMembers: its Omit would drop the members of the entry's union type.
  return Object.assign({}, entry, { order_item_indices: indices });
}

/**
 * Selects the discount targets among `lines`. `ruleTargets` are items the rules themselves mark as
 * discount-applicable; they count as further included entries (APPLY_TO_EVERY).
 */
export function selectItems(applicableTo: ApplicableTo, ruleTargets: readonly ApplicableToEntry[], lines: readonly SelectableLine[]): ItemSelection {
  const included = [...applicableTo.included, ...ruleTargets];
  const excluded = applicableTo.excluded;
  const all = lines.map((_, index) => index);
  const totalUnits = lines.reduce((sum, line) => sum + Math.max(0, Math.floor(line.quantity)), 0);
  const listUnits = totalUnits <= MAX_LISTED_UNITS;

  const excludedBy = excluded.map((entry) => all.filter((index) => lineMatchesRef(lines[index] as SelectableLine, entry)));
  const removed = new Set(excludedBy.flat());
  const restricted = included.length > 0 || excluded.length > 0;

  const targets: ItemTarget[] = [];
  const claimed = new Set<number>();
  const results: ResultEntry[] = [];
  for (const entry of included) {
    const candidates = all.filter(
      (index) => !removed.has(index) && !claimed.has(index) && lineMatchesRef(lines[index] as SelectableLine, entry),
    );
    const chosen = selectForEntry(lines, candidates, entry, listUnits);
    for (const target of chosen) claimed.add(target.index);
    targets.push(...chosen);
    if (!applicableTo.included.includes(entry)) continue;
    const result: ResultEntry = withIndices(entry, chosen.map((t) => t.index));
    if (entry.target === 'UNIT') {
      result.order_item_units = chosen.map((t) =>
        t.unitNumbers === null ? { index: t.index, units_limit_exceeded: true } : { index: t.index, units: t.unitNumbers },
      );
    }
    results.push(result);
  }
  // `included_all`, or exclusions alone, leave every other line as a plain target; so does a rule set
  // that names no targets at all.
  if (applicableTo.included_all || included.length === 0) {
    const rest = all.filter((index) => !removed.has(index) && !claimed.has(index));
    targets.push(...selectForEntry(lines, rest, null, listUnits));
  }
  return {
    restricted,
    targets,
    applicable_to: resultList(results),
    inapplicable_to: resultList(excluded.map((entry, i) => withIndices(entry, excludedBy[i] ?? []))),
  };
}
