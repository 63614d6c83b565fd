import { Alert, Anchor, Button, Card, Checkbox, Group, NumberInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, ApiError, type ErrorBody } from '../../api/client.ts';
import { messageOf } from '../../api/field-errors.ts';
import { useCan } from '../../app/session.tsx';
import { money } from '../../components/format.ts';

// Validating or redeeming one code by hand, as the shop's checkout would (POST /v1/validations and
// POST /v1/redemptions with the code, an order amount and optionally the customer), and the API's answer
// in words: what the order gets, or why the code was refused.

interface CalculatedOrder {
  amount?: number;
  total_applied_discount_amount?: number;
  total_discount_amount?: number;
  total_amount?: number;
}

interface ValidationAnswer {
  valid: boolean;
  order?: CalculatedOrder;
  redeemables: Array<{ status: string; result: { error?: { key?: string; message?: string; details?: string }; details?: { key?: string; message?: string }; gift?: { credits?: number }; loyalty_card?: { points?: number } } }>;
}

interface RedemptionAnswer {
  redemptions: Array<{ id: string; order?: CalculatedOrder | null; amount?: number }>;
  order?: CalculatedOrder;
}

type Outcome =
  | { kind: 'valid'; order: CalculatedOrder | undefined; credits?: number | undefined }
  | { kind: 'invalid'; reason: string; key: string | undefined }
  | { kind: 'redeemed'; id: string; order: CalculatedOrder | undefined }
  | { kind: 'refused'; reason: string; key: string | undefined; recordId: string | undefined };

const discountOf = (order: CalculatedOrder | undefined) => order?.total_applied_discount_amount ?? order?.total_discount_amount ?? 0;

function orderLine(order: CalculatedOrder | undefined): string {
  if (!order) return '';
  return `Order ${money(order.amount)} − ${money(discountOf(order))} = ${money(order.total_amount)} to pay`;
}

export function TryCodeCard({ code, holderId }: { code: string; holderId: string | null }) {
  const client = useQueryClient();
  const can = useCan();
  const [amount, setAmount] = useState<number | string>('');
  const [customer, setCustomer] = useState('');
  // A held code is tried as its holder unless the merchant names someone else.
  const [asHolder, setAsHolder] = useState(holderId !== null);
  const [busy, setBusy] = useState<'validate' | 'redeem' | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [error, setError] = useState<unknown>(null);
  const mayValidate = can('POST', '/v1/validations');
  const mayRedeem = can('POST', '/v1/redemptions');
  if (!mayValidate && !mayRedeem) return null;

  const customerOf = () => {
    if (asHolder && holderId) return { id: holderId };
    const typed = customer.trim();
    if (!typed) return null;
    return typed.startsWith('cust_') ? { id: typed } : { source_id: typed };
  };
  const body = () => {
    const who = customerOf();
    return { redeemables: [{ object: 'voucher', id: code }], order: { amount: Math.round(Number(amount) * 100) }, ...(who ? { customer: who } : {}) };
  };

  const run = async (action: 'validate' | 'redeem') => {
    setBusy(action);
    setOutcome(null);
    setError(null);
    try {
      if (action === 'validate') {
        const answer = await api<ValidationAnswer>('POST', '/v1/validations', body());
        const entry = answer.redeemables[0];
        if (answer.valid) setOutcome({ kind: 'valid', order: answer.order, credits: entry?.result.gift?.credits });
        else {
          const refusal = entry?.result.error ?? entry?.result.details;
          setOutcome({ kind: 'invalid', reason: (entry?.result.error?.details ?? refusal?.message) || 'The code does not apply to this order', key: refusal?.key });
        }
      } else {
        const answer = await api<RedemptionAnswer>('POST', '/v1/redemptions', body());
        const record = answer.redemptions[0];
        setOutcome({ kind: 'redeemed', id: record?.id ?? '', order: answer.order ?? record?.order ?? undefined });
        await client.invalidateQueries({ predicate: (q) => ['voucher', 'vouchers', 'voucher-redemptions', 'redemptions', 'campaign-vouchers', 'report'].includes(String(q.queryKey[0])) });
      }
    } catch (caught) {
      // A refused redemption is stored as a FAILURE record (resource_id) and answers 400 with its reason.
      const refusal = caught instanceof ApiError ? (caught.body as ErrorBody & { resource_type?: string; resource_id?: string }) : null;
      if (action === 'redeem' && refusal?.resource_type === 'redemption') {
        setOutcome({ kind: 'refused', reason: messageOf(caught), key: refusal.key, recordId: refusal.resource_id });
        // The refusal is a record too, and the code may have changed elsewhere since the page was read.
        await client.invalidateQueries({ predicate: (q) => ['voucher', 'voucher-redemptions', 'redemptions', 'report'].includes(String(q.queryKey[0])) });
      } else setError(caught);
    } finally {
      setBusy(null);
    }
  };

  return (
    <Card withBorder data-testid="try-code">
      <Title order={2} size="h5" mb="xs">
        Validate or redeem by hand
      </Title>
      <form onSubmit={(e) => { e.preventDefault(); void run(mayValidate ? 'validate' : 'redeem'); }}>
        <Stack gap="sm">
          <Group align="flex-start" wrap="wrap">
            <NumberInput label="Order amount" required value={amount} onChange={setAmount} min={0} decimalScale={2} w={180} />
            {!(asHolder && holderId) && (
              <TextInput label="Customer (id or source_id)" description="Optional" value={customer} onChange={(e) => setCustomer(e.currentTarget.value)} w={240} />
            )}
          </Group>
          {holderId && <Checkbox label="As the code's holder" checked={asHolder} onChange={(e) => setAsHolder(e.currentTarget.checked)} />}
          <Group>
            {mayValidate && (
              <Button type="submit" variant="light" loading={busy === 'validate'} disabled={busy !== null}>
                Validate
              </Button>
            )}
            {mayRedeem && (
              <Button color="green" loading={busy === 'redeem'} disabled={busy !== null || amount === ''} onClick={() => void run('redeem')}>
                Redeem
              </Button>
            )}
          </Group>
          {outcome && <OutcomeAlert outcome={outcome} />}
          {error !== null && (
            <Alert color="red" role="alert" title="The request failed" data-testid="try-error">
              {messageOf(error)}
              {error instanceof ApiError && <Text size="xs" c="dimmed">{error.status} {error.body.key}</Text>}
            </Alert>
          )}
        </Stack>
      </form>
    </Card>
  );
}

function OutcomeAlert({ outcome }: { outcome: Outcome }) {
  switch (outcome.kind) {
    case 'valid':
      return (
        <Alert color="green" title={`Valid: ${money(discountOf(outcome.order))} off`} data-testid="try-outcome">
          <Text size="sm">{orderLine(outcome.order)}</Text>
          {outcome.credits !== undefined && <Text size="sm">{money(outcome.credits)} gift credits would be used.</Text>}
          <Text size="xs" c="dimmed">Nothing was consumed.</Text>
        </Alert>
      );
    case 'invalid':
      return (
        <Alert color="orange" title="Not valid for this order" data-testid="try-outcome">
          <Text size="sm">{outcome.reason}</Text>
          {outcome.key && <Text size="xs" c="dimmed">{outcome.key}</Text>}
        </Alert>
      );
    case 'redeemed':
      return (
        <Alert color="green" title={`Redeemed: ${money(discountOf(outcome.order))} off`} data-testid="try-outcome">
          <Text size="sm">{orderLine(outcome.order)}</Text>
          <Anchor component={Link} to={`/redemptions?open=${encodeURIComponent(outcome.id)}`} size="sm">
            Open redemption {outcome.id}
          </Anchor>
        </Alert>
      );
    case 'refused':
      return (
        <Alert color="red" title="Redemption refused" data-testid="try-outcome">
          <Text size="sm">{outcome.reason}</Text>
          {outcome.key && <Text size="xs" c="dimmed">{outcome.key}</Text>}
          {outcome.recordId && (
            <Anchor component={Link} to={`/redemptions?open=${encodeURIComponent(outcome.recordId)}`} size="sm">
              Open the refusal record
            </Anchor>
          )}
        </Alert>
      );
  }
}
