// `options.filters` of qualifications (promotions reference 8): `{junction, <field>: {conditions:
// {<$op>: [values]}}}` over the candidates' campaign, category, resource, voucher type, code and holder
// role, with the operators $is, $is_not, $in, $not_in, $has_value, $is_unknown. Pure.

export interface QualificationSubject {
  id: string;
  object: 'voucher' | 'promotion_tier' | 'promotion_stack' | 'campaign';
  createdAt: string;
  campaignId: string | null;
  campaignType: string | null;
  categoryIds: string[];
  resourceId: string;
  resourceType: 'voucher' | 'promotion_tier' | 'promotion_stack' | 'campaign';
  voucherType: string | null;
  code: string | null;
  holderRole: 'OWNER' | 'REFERRER' | 'REFEREE' | null;
}

const FIELDS: Record<string, (s: QualificationSubject) => string[]> = {
  category_id: (s) => s.categoryIds,
  campaign_id: (s) => (s.campaignId ? [s.campaignId] : []),
  campaign_type: (s) => (s.campaignType ? [s.campaignType] : []),
  resource_id: (s) => [s.resourceId],
  resource_type: (s) => [s.resourceType],
  voucher_type: (s) => (s.voucherType ? [s.voucherType] : []),
  code: (s) => (s.code ? [s.code] : []),
  holder_role: (s) => (s.holderRole ? [s.holderRole] : []),
};

const OPERATORS = ['$is', '$is_not', '$in', '$not_in', '$has_value', '$is_unknown'] as const;
type Operator = (typeof OPERATORS)[number];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function operands(value: unknown): string[] {
  const list = Array.isArray(value) ? value : value === undefined || value === null || value === '' ? [] : [value];
  return list.map((v) => String(v));
}

/** What is wrong with a filter (naming the property), or null. */
export function qualificationFilterProblem(filters: Record<string, unknown> | null): string | null {
  if (!filters) return null;
  for (const [key, value] of Object.entries(filters)) {
    const path = `.options.filters.${key}`;
    if (key === 'junction') {
      if (typeof value !== 'string' || !['and', 'or'].includes(value.toLowerCase())) return `Property ${path} should be equal to one of the allowed values [ and, or ]`;
      continue;
    }
    if (!FIELDS[key]) return `Property ${path} is not a qualification filter; fields: ${Object.keys(FIELDS).join(', ')}`;
    if (!isRecord(value) || !isRecord(value.conditions)) return `Property ${path} should have required property 'conditions'`;
    for (const op of Object.keys(value.conditions)) {
      if (!(OPERATORS as readonly string[]).includes(op)) return `Property ${path}.conditions.${op} is not allowed; operators: ${OPERATORS.join(', ')}`;
    }
  }
  return null;
}

function holds(op: Operator, values: readonly string[], wanted: readonly string[]): boolean {
  switch (op) {
    case '$is':
    case '$in':
      return values.some((v) => wanted.includes(v));
    case '$is_not':
    case '$not_in':
      return !values.some((v) => wanted.includes(v));
    case '$has_value':
      return values.length > 0;
    case '$is_unknown':
      return values.length === 0;
  }
}

/** Whether a candidate passes the filters (checked by qualificationFilterProblem first). */
export function qualifies(subject: QualificationSubject, filters: Record<string, unknown> | null): boolean {
  if (!filters) return true;
  const junction = typeof filters.junction === 'string' && filters.junction.toLowerCase() === 'or' ? 'or' : 'and';
  const results: boolean[] = [];
  for (const [key, value] of Object.entries(filters)) {
    const read = FIELDS[key];
    if (!read || !isRecord(value) || !isRecord(value.conditions)) continue;
    const values = read(subject);
    results.push(Object.entries(value.conditions).every(([op, operand]) => holds(op as Operator, values, operands(operand))));
  }
  if (results.length === 0) return true;
  return junction === 'or' ? results.some(Boolean) : results.every(Boolean);
}
