// The validation rule and assignment objects as the API answers them (GET /v1/validation-rules…).

export interface ValidationRule {
  id: string;
  name: string;
  rules: Record<string, unknown>;
  error?: { message: string };
  applicable_to: { included: unknown[]; excluded: unknown[]; included_all: boolean };
  type: string;
  context_type: string;
  created_at: string;
  updated_at: string | null;
  assignments_count: number;
}

export interface Assignment {
  id: string;
  rule_id: string;
  related_object_id: string;
  related_object_type: string;
  created_at: string;
}

export interface ListOf<T> {
  data: T[];
  total: number;
}
