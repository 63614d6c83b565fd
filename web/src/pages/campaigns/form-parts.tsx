import { ActionIcon, Button, Group, Input, NumberInput, SegmentedControl, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { api } from '../../api/client.ts';
import { money } from '../../components/format.ts';
import { messageOf } from '../../api/field-errors.ts';
import { problemsOf, toApi, type RuleModel } from '../../rules/translate.ts';

// Pieces every campaign form shares (create, edit, tiers): the discount (percent or amount), the validity
// dates, gift and loyalty card values, metadata, and creating the validation rule the builder describes
// before the campaign (or tier) that uses it. Recurring windows are in validity-fields.tsx.

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

/** A discount in words: "15% off", "5.00 off", or its type for the others. */
export function discountText(d: { type: string; percent_off?: number; amount_off?: number } | null | undefined): string {
  if (!d) return '—';
  if (d.type === 'PERCENT') return `${d.percent_off ?? 0}% off`;
  if (d.type === 'AMOUNT') return `${money(d.amount_off ?? 0)} off`;
  return d.type;
}

/** The form's discount for an API discount; null for the types this form does not offer (UNIT, FIXED…). */
export function discountValueOf(d: { type: string; percent_off?: number; amount_off?: number } | null | undefined): DiscountValue | null {
  if (d?.type === 'PERCENT') return { kind: 'PERCENT', value: d.percent_off ?? 0 };
  if (d?.type === 'AMOUNT') return { kind: 'AMOUNT', value: (d.amount_off ?? 0) / 100 };
  return null;
}

/**
 * The discount to send when editing one: none when the inputs still show the stored value; of the same
 * type, the stored discount with the new figure (its limit, effect and the rest kept); of another type,
 * a new discount.
 */
export function discountUpdateOf(stored: Record<string, unknown> | null | undefined, value: DiscountValue): Record<string, unknown> | undefined {
  const before = discountValueOf(stored as Parameters<typeof discountValueOf>[0]);
  if (before && before.kind === value.kind && Number(before.value) === Number(value.value)) return undefined;
  if (stored?.type !== value.kind) return discountOf(value);
  const { is_dynamic: _output, ...kept } = stored;
  return { ...kept, ...discountOf(value) };
}

/** The `datetime-local` text (local time) of an API date; '' for none. */
export function localInputOf(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** For an update: an emptied input clears the date (null) instead of leaving it as it was. */
export function validityUpdateOf({ start, end }: Validity): { start_date: string | null; expiration_date: string | null } {
  return { start_date: start ? new Date(start).toISOString() : null, expiration_date: end ? new Date(end).toISOString() : null };
}

export interface MetadataRow {
  key: string;
  value: string;
}

export function metadataRowsOf(metadata: Record<string, unknown> | null | undefined): MetadataRow[] {
  return Object.entries(metadata ?? {}).map(([key, value]) => ({ key, value: typeof value === 'string' ? value : JSON.stringify(value) }));
}

/**
 * The metadata object for the rows typed. A value left as it was keeps its type (a number stays a number);
 * a changed or new one is text. Rows without a key are dropped.
 */
export function metadataOf(rows: MetadataRow[], original: Record<string, unknown> | null | undefined): Record<string, unknown> {
  const before = new Map(metadataRowsOf(original).map((row) => [row.key, row.value]));
  const out: Record<string, unknown> = {};
  for (const { key, value } of rows) {
    const name = key.trim();
    if (name === '') continue;
    out[name] = before.get(name) === value ? original?.[name] : value;
  }
  return out;
}

export function MetadataFields({ rows, onChange, error }: { rows: MetadataRow[]; onChange: (rows: MetadataRow[]) => void; error?: string | undefined }) {
  const update = (index: number, patch: Partial<MetadataRow>) => onChange(rows.map((row, i) => (i === index ? { ...row, ...patch } : row)));
  return (
    <Stack gap="xs">
      <Input.Label>Metadata</Input.Label>
      {rows.map((row, i) => (
        <Group key={i} gap="xs" wrap="nowrap" align="flex-start">
          <TextInput aria-label={`Metadata key ${i + 1}`} placeholder="key" value={row.key} onChange={(e) => update(i, { key: e.currentTarget.value })} style={{ flex: 1, minWidth: 0 }} />
          <TextInput aria-label={`Metadata value ${i + 1}`} placeholder="value" value={row.value} onChange={(e) => update(i, { value: e.currentTarget.value })} style={{ flex: 2, minWidth: 0 }} />
          <ActionIcon variant="subtle" color="red" mt={6} aria-label={`Remove metadata ${row.key || i + 1}`} onClick={() => onChange(rows.filter((_, j) => j !== i))}>
            ✕
          </ActionIcon>
        </Group>
      ))}
      {error && (
        <Text size="xs" c="red">
          {error}
        </Text>
      )}
      <Group>
        <Button size="xs" variant="light" onClick={() => onChange([...rows, { key: '', value: '' }])}>
          Add metadata
        </Button>
      </Group>
    </Stack>
  );
}

/** Gift cards: the credits each card holds, typed in major units. */
export function GiftAmountInput({ value, onChange, error }: { value: number | string; onChange: (value: number | string) => void; error?: string | undefined }) {
  return <NumberInput label="Credits on each card" description="In your currency's major units, e.g. 50.00" value={value} onChange={onChange} min={0} decimalScale={2} error={error} w={240} />;
}

/** Loyalty cards: the points a new card starts with, and after how many months points expire ('' = never). */
export function LoyaltyCardFields({ points, months, onChange, errors = {} }: {
  points: number | string;
  months: number | string;
  onChange: (value: { points: number | string; months: number | string }) => void;
  errors?: { points?: string | undefined; expiry?: string | undefined };
}) {
  return (
    <Group grow align="flex-start" wrap="wrap">
      <NumberInput label="Points each new card starts with" value={points} onChange={(p) => onChange({ points: p, months })} min={0} error={errors.points} miw={200} />
      <NumberInput label="Points expire after (months)" description="Empty: points never expire" value={months} onChange={(m) => onChange({ points, months: m })} min={1} max={1200} error={errors.expiry} miw={200} />
    </Group>
  );
}

/** The `loyalty_card` template for the inputs. */
export function loyaltyCardOf(points: number | string, months: number | string): Record<string, unknown> {
  return { points: Number(points), ...(months !== '' ? { expiration_rules: { period_type: 'MONTH', period_value: Number(months) } } : {}) };
}
