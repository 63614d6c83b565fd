// The catalog as the API answers it (GET /v1/products, /v1/products/{id}/skus, /v1/skus/{id}).

export interface Sku {
  id: string;
  source_id: string | null;
  product_id: string;
  sku: string | null;
  price: number | null;
  currency: string | null;
  attributes: Record<string, unknown>;
  image_url: string | null;
  metadata: Record<string, unknown>;
  created_at: string;
  updated_at: string | null;
}

export interface Product {
  id: string;
  source_id: string | null;
  name: string | null;
  price: number | null;
  attributes: string[];
  metadata: Record<string, unknown>;
  image_url: string | null;
  created_at: string;
  updated_at: string | null;
  skus?: { data: Sku[]; total: number };
}

/** What a person calls a product: its name, else its source_id, else its id. */
export const productLabel = (p: Pick<Product, 'id' | 'name' | 'source_id'>): string => p.name ?? p.source_id ?? p.id;

export const skuLabel = (s: Pick<Sku, 'id' | 'sku' | 'source_id'>): string => s.sku ?? s.source_id ?? s.id;

/** Every query of the catalog starts with this key, so one invalidation refreshes lists and pages. */
export const CATALOG_KEY = 'catalog';
