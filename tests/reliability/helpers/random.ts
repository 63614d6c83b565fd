// A seeded generator: a failing sweep or crash round can be replayed with the seed it prints
// (PUNCHCARD_RELIABILITY_SEED), instead of depending on Math.random.

export class Random {
  #state: number;
  readonly seed: number;

  constructor(seed: number) {
    this.seed = seed >>> 0;
    this.#state = this.seed || 1;
  }

  /** mulberry32 */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(maxExclusive: number): number {
    return Math.floor(this.next() * maxExclusive);
  }

  between(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[this.int(items.length)] as T;
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  fork(): Random {
    return new Random(this.int(2 ** 32));
  }
}

export function suiteSeed(): number {
  const fixed = process.env.PUNCHCARD_RELIABILITY_SEED;
  if (fixed !== undefined && /^\d+$/.test(fixed)) return Number(fixed);
  return Math.floor(Math.random() * 2 ** 31);
}
