import { useQuery } from '@tanstack/react-query';
import { api, withQuery } from '../api/client.ts';
import type { ApplicableEntry, Names } from './translate.ts';

// What the rule builder picks by name: the project's products with their SKUs, product collections and
// customer segments, read through the public list routes (which have no name search, so the pickers
// search what is loaded; up to PAGES pages of 100 each).

const PAGES = 10;

interface ProductPage {
  products: Array<{ id: string; name: string | null; source_id: string | null; skus: { data: Array<{ id: string; sku: string | null; source_id: string | null }> } }>;
  total: number;
}

interface DataPage<T> {
  data: T[];
  total: number;
}

async function allPages<T>(read: (page: number) => Promise<{ items: T[]; total: number }>): Promise<T[]> {
  const items: T[] = [];
  for (let page = 1; page <= PAGES; page += 1) {
    const answer = await read(page);
    items.push(...answer.items);
    if (answer.items.length === 0 || items.length >= answer.total) break;
  }
  return items;
}

export interface PickOption {
  value: string;
  label: string;
}

export interface Catalog {
  products: PickOption[];
  skus: PickOption[];
  collections: PickOption[];
  names: Record<string, string>;
}

/** The picker value of an entry (`product:prod_1`), and back. */
export const pickValue = (entry: ApplicableEntry): string => `${entry.object}:${entry.id}`;
export function entryOf(value: string): ApplicableEntry {
  const at = value.indexOf(':');
  return { object: value.slice(0, at) as ApplicableEntry['object'], id: value.slice(at + 1) };
}

export function useCatalog() {
  return useQuery({
    queryKey: ['rule-catalog'],
    queryFn: async (): Promise<Catalog> => {
      const [products, collections] = await Promise.all([
        allPages(async (page) => {
          const answer = await api<ProductPage>('GET', withQuery('/v1/products', { limit: 100, page }));
          return { items: answer.products, total: answer.total };
        }),
        allPages(async (page) => {
          const answer = await api<DataPage<{ id: string; name: string }>>('GET', withQuery('/v1/product-collections', { limit: 100, page }));
          return { items: answer.data, total: answer.total };
        }),
      ]);
      const names: Record<string, string> = {};
      const catalog: Catalog = { products: [], skus: [], collections: [], names };
      for (const p of products) {
        const name = p.name ?? p.source_id ?? p.id;
        names[p.id] = name;
        catalog.products.push({ value: pickValue({ object: 'product', id: p.id }), label: name });
        for (const s of p.skus.data) {
          const skuName = `${name} – ${s.sku ?? s.source_id ?? s.id}`;
          names[s.id] = skuName;
          catalog.skus.push({ value: pickValue({ object: 'sku', id: s.id }), label: skuName });
        }
      }
      for (const c of collections) {
        names[c.id] = c.name;
        catalog.collections.push({ value: pickValue({ object: 'products_collection', id: c.id }), label: c.name });
      }
      return catalog;
    },
    staleTime: 30_000,
  });
}

export function useSegments() {
  return useQuery({
    queryKey: ['rule-segments'],
    queryFn: async () => {
      const segments = await allPages(async (page) => {
        const answer = await api<DataPage<{ id: string; name: string }>>('GET', withQuery('/v1/segments', { limit: 100, page }));
        return { items: answer.data, total: answer.total };
      });
      return segments.map((s) => ({ value: s.id, label: s.name }));
    },
    staleTime: 30_000,
  });
}

/** Names of every product, SKU, collection and segment the builder knows, for describing a rule. */
export function useRuleNames(): Names {
  const catalog = useCatalog();
  const segments = useSegments();
  return { ...(catalog.data?.names ?? {}), ...Object.fromEntries((segments.data ?? []).map((s) => [s.value, s.label])) };
}
