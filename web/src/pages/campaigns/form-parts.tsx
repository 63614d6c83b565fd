import { Group, NumberInput, SegmentedControl, SimpleGrid, TextInput } from '@mantine/core';
import { api } from '../../api/client.ts';
import { messageOf } from '../../api/field-errors.ts';
import { problemsOf, toApi, type RuleModel } from '../../rules/translate.ts';

// Pieces every campaign form shares: the discount (percent or amount), the validity dates, and creating
// the validation rule the builder describes before the campaign (or tier) that uses it.

export type DiscountKind = 'PERCENT' | 'AMOUNT';

export interface DiscountValue {
  kind: DiscountKind;
  value: number | string;
}

/** The API's discount object; amounts typed in major units become minor units. */
export function discountOf({ kind, value }: DiscountValue): Record<string, unknown> {
  return kind === 'PERCENT' ? { type: 'PERCENT', percent_off: Number(value) } : { type: 'AMOUNT', amount_off: Math.round(Number(value) * 100) };
}

export function DiscountFields({ value, onChange, error, label = '' }: { value: DiscountValue; onChange: (value: DiscountValue) => void; error?: string | undefined; label?: string }) {
  const prefix = label === '' ? '' : `${label} `;
  return (
    <Group align="flex-end" wrap="wrap">
      <SegmentedControl
        aria-label={`${prefix}Discount type`}
        value={value.kind}
        onChange={(kind) => onChange({ ...value, kind: kind as DiscountKind })}
        data={[
          { value: 'PERCENT', label: 'Percent off' },
          { value: 'AMOUNT', label: 'Amount off' },
        ]}
      />
      <NumberInput
        label={value.kind === 'PERCENT' ? 'Percent off' : 'Amount off'}
        aria-label={`${prefix}${value.kind === 'PERCENT' ? 'Percent off' : 'Amount off'}`}
        value={value.value}
        onChange={(v) => onChange({ ...value, value: v })}
        min={0}
        decimalScale={2}
        error={error}
        w={160}
      />
    </Group>
  );
}

export interface Validity {
  start: string;
  end: string;
}

export function ValidityInputs({ value, onChange, errors = {} }: { value: Validity; onChange: (value: Validity) => void; errors?: { start?: string | undefined; end?: string | undefined } }) {
  return (
    <SimpleGrid cols={{ base: 1, sm: 2 }}>
      <TextInput label="Starts" type="datetime-local" value={value.start} onChange={(e) => onChange({ ...value, start: e.currentTarget.value })} error={errors.start} />
      <TextInput label="Expires" type="datetime-local" value={value.end} onChange={(e) => onChange({ ...value, end: e.currentTarget.value })} error={errors.end} />
    </SimpleGrid>
  );
}

/** `start_date` / `expiration_date` members for the dates typed (local time), none for empty inputs. */
export function validityOf({ start, end }: Validity): Record<string, string> {
  return {
    ...(start ? { start_date: new Date(start).toISOString() } : {}),
    ...(end ? { expiration_date: new Date(end).toISOString() } : {}),
  };
}

export const hasRule = (model: RuleModel): boolean => model.conditions.length > 0 || model.applicableTo.length > 0;

/** Answers whether the builder's rule is complete (an incomplete one is named by the builder itself). */
export const ruleComplete = (model: RuleModel): boolean => problemsOf(model).length === 0;

export type RuleResult = { ok: true; id: string | null } | { ok: false; message: string };

/** Creates the rule (POST /v1/validation-rules) when the builder holds one; the API's refusal as text. */
export async function createRuleIfAny(name: string, model: RuleModel): Promise<RuleResult> {
  if (!hasRule(model)) return { ok: true, id: null };
  try {
    const created = await api<{ id: string }>('POST', '/v1/validation-rules', { name, ...toApi(model) });
    return { ok: true, id: created.id };
  } catch (error) {
    return { ok: false, message: messageOf(error) };
  }
}

/** Shared by the gift, loyalty and referral forms: how many codes now, and their prefix. */
export function CodeFields({ count, prefix, onChange, errors = {} }: { count: number | string; prefix: string; onChange: (value: { count: number | string; prefix: string }) => void; errors?: { count?: string | undefined; prefix?: string | undefined } }) {
  return (
    <Group grow align="flex-start" wrap="wrap">
      <NumberInput label="Codes to generate now" value={count} onChange={(c) => onChange({ count: c, prefix })} min={0} error={errors.count} miw={200} />
      <TextInput label="Code prefix" placeholder="e.g. SPRING-" value={prefix} onChange={(e) => onChange({ count, prefix: e.currentTarget.value })} error={errors.prefix} miw={200} />
    </Group>
  );
}
