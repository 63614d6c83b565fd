// The customer as the console reads it from GET /v1/customers and GET /v1/customers/{id}.

export interface Address {
  line_1: string | null;
  line_2: string | null;
  city: string | null;
  state: string | null;
  postal_code: string | null;
  country: string | null;
}

export interface Customer {
  id: string;
  source_id: string | null;
  name: string | null;
  description: string | null;
  email: string | null;
  phone: string | null;
  address: Address | null;
  metadata: Record<string, unknown>;
  created_at: string;
  updated_at: string | null;
  summary: {
    redemptions: { total_redeemed: number; total_succeeded: number; total_failed: number; total_rolled_back: number };
    orders: { total_amount: number; total_count: number; average_amount: number; last_order_amount: number; last_order_date: string | null };
  };
  loyalty: { points: number; referred_customers: number };
  assets?: { cockpit_url: string | null; cockpit_preference_center_url: string | null };
}

/** How a person is called on screen: her name, else her source_id, else the id. */
export function customerLabel(c: Pick<Customer, 'id' | 'name' | 'source_id'>): string {
  return c.name ?? c.source_id ?? c.id;
}

export const customerPath = (id: string) => `/v1/customers/${encodeURIComponent(id)}`;
