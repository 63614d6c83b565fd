import { useQueries } from '@tanstack/react-query';
import { api } from '../../api/client.ts';

// Orders as the API answers them (GET /v1/orders, /v1/orders/{id}), and the customers they name.

export const ORDER_STATUSES = ['CREATED', 'PAID', 'FULFILLED', 'CANCELED'] as const;

export const STATUS_COLOR: Record<string, string> = { CREATED: 'gray', PAID: 'green', FULFILLED: 'blue', CANCELED: 'red' };

export interface OrderItem {
  product_id: string | null;
  sku_id: string | null;
  source_id: string | null;
  related_object: 'product' | 'sku' | null;
  quantity: number;
  price: number | null;
  amount: number | null;
  discount_amount: number;
  subtotal_amount: number | null;
  product?: { id: string | null; source_id: string | null; name: string | null; price: number | null };
  sku?: { id: string | null; source_id: string | null; sku: string | null; price: number | null };
}

export interface Order {
  id: string;
  source_id: string | null;
  created_at: string;
  updated_at: string | null;
  status: string;
  amount: number;
  total_discount_amount: number;
  total_amount: number;
  items: OrderItem[];
  metadata: Record<string, unknown>;
  customer_id: string | null;
  referrer_id: string | null;
  redemptions: Record<string, { date: string; related_object_type: string; related_object_id: string; rollback_id?: string; stacked?: string[] }>;
}

export interface CustomerName {
  id: string;
  name: string | null;
  email: string | null;
  source_id: string | null;
}

export const customerLabel = (c: CustomerName | undefined, id: string): string => c?.name ?? c?.email ?? c?.source_id ?? id;

/**
 * The customers with these ids, by id (one request each, shared with every other screen that reads a
 * customer): a list page of orders names at most its page's worth.
 */
export function useCustomers(ids: Array<string | null>): Map<string, CustomerName> {
  const unique = [...new Set(ids.filter((id): id is string => id !== null))];
  const answers = useQueries({
    queries: unique.map((id) => ({
      queryKey: ['customer-name', id],
      queryFn: () => api<CustomerName>('GET', `/v1/customers/${encodeURIComponent(id)}`),
      staleTime: 60_000,
      retry: false,
    })),
  });
  const found = new Map<string, CustomerName>();
  answers.forEach((answer, i) => {
    if (answer.data) found.set(unique[i] ?? '', answer.data);
  });
  return found;
}
