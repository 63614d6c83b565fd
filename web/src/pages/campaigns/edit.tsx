import { Button, Card, Group, Loader, Stack, Text, TextInput, Textarea, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { api } from '../../api/client.ts';
import { messageOf } from '../../api/field-errors.ts';
import { useCan } from '../../app/session.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { useFormSubmit } from '../../components/forms.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { notifyDone } from '../../components/notify.ts';
import {
  DiscountFields,
  discountUpdateOf,
  discountValueOf,
  GiftAmountInput,
  localInputOf,
  LoyaltyCardFields,
  loyaltyCardOf,
  MetadataFields,
  metadataOf,
  metadataRowsOf,
  ValidityInputs,
  validityUpdateOf,
  type DiscountValue,
  type MetadataRow,
  type Validity,
} from './form-parts.tsx';
import type { Campaign } from './list.tsx';
import { ReferralFields, referralOf, referralValueOf, type ReferralSettings } from './referral-fields.tsx';
import { HoursFields, hoursOf, hoursValueOf, WindowFields, windowsOf, windowsValueOf, type HourWindow, type Windows } from './validity-fields.tsx';
import { choiceComplete, choiceOf, ruleIdOf, RulePicker, type RuleChoice } from './rule-picker.tsx';

// Editing a campaign of any type with PUT /v1/campaigns/{id}: what the API lets change (description,
// category, dates and recurring windows, the value of its codes, metadata). The validation rule is
// changed through the rule's assignments, after the campaign is saved. Each refusal shows at the input
// whose member it names.

const FIELDS = {
  description: 'description',
  category: 'category',
  start: 'start_date',
  end: 'expiration_date',
  days: 'validity_day_of_week',
  timeframe: 'validity_timeframe',
  hours: 'validity_hours',
  discount: 'discount',
  gift: 'gift',
  points: 'loyalty_card.points',
  expiry: 'loyalty_card.expiration_rules',
  metadata: 'metadata',
  conversion: 'referral_program.conversion_event_type',
  event: 'referral_program.custom_event',
  reward: 'referral_program.referee_reward',
};

const TYPE_NAMES: Record<string, string> = {
  DISCOUNT_COUPONS: 'Discount coupons',
  PROMOTION: 'Promotion',
  GIFT_VOUCHERS: 'Gift cards',
  LOYALTY_PROGRAM: 'Loyalty program',
  REFERRAL_PROGRAM: 'Referral program',
};

export function CampaignEditPage() {
  const { campaignId = '' } = useParams();
  const campaign = useQuery({ queryKey: ['campaign', campaignId], queryFn: () => api<Campaign>('GET', `/v1/campaigns/${encodeURIComponent(campaignId)}`) });
  if (campaign.isPending) return <Loader aria-label="Loading campaign" />;
  if (campaign.isError) return <ErrorAlert error={campaign.error} title="Campaign not found" />;
  return <CampaignEditForm key={campaign.data.id} campaign={campaign.data} />;
}

interface Values {
  text: { description: string; category: string };
  validity: Validity;
  windows: Windows;
  hours: HourWindow[];
  discount: DiscountValue | null;
  gift: number | string;
  card: { points: number | string; months: number | string };
  referral: ReferralSettings;
  metadata: MetadataRow[];
}

/** What the inputs show for the stored campaign. */
function valuesOf(c: Campaign): Values {
  const template = c.voucher;
  const expiry = template?.loyalty_card?.expiration_rules;
  return {
    text: { description: c.description ?? '', category: c.category ?? '' },
    validity: { start: localInputOf(c.start_date), end: localInputOf(c.expiration_date) },
    windows: windowsValueOf(c),
    hours: hoursValueOf(c.validity_hours as Parameters<typeof hoursValueOf>[0]),
    discount: template?.type === 'DISCOUNT_VOUCHER' ? discountValueOf(template.discount) : null,
    gift: (template?.gift?.amount ?? 0) / 100,
    card: { points: template?.loyalty_card?.points ?? 0, months: expiry?.period_type === 'MONTH' ? (expiry.period_value ?? '') : '' },
    referral: referralValueOf(c.referral_program),
    metadata: metadataRowsOf(c.metadata),
  };
}

/** Every member the form can set, as the inputs say. */
function bodyOf(c: Campaign, v: Values): Record<string, unknown> {
  const template = c.voucher;
  const expiry = template?.loyalty_card?.expiration_rules;
  // The console edits monthly point expiry; another kind (a fixed day of the year) is kept as it is.
  const monthlyExpiry = !expiry || expiry.period_type === 'MONTH';
  return {
    description: v.text.description.trim() === '' ? null : v.text.description,
    category: v.text.category.trim() === '' ? null : v.text.category.trim(),
    ...validityUpdateOf(v.validity),
    ...windowsOf(v.windows),
    ...hoursOf(v.hours),
    metadata: metadataOf(v.metadata, c.metadata),
    ...(v.discount ? { discount: discountUpdateOf(template?.discount, v.discount) } : {}),
    ...(template?.type === 'GIFT_VOUCHER' ? { gift: { amount: Math.round(Number(v.gift) * 100), ...(template.gift?.effect ? { effect: template.gift.effect } : {}) } } : {}),
    ...(template?.type === 'LOYALTY_CARD'
      ? { loyalty_card: monthlyExpiry ? loyaltyCardOf(v.card.points, v.card.months) : { points: Number(v.card.points), expiration_rules: expiry } }
      : {}),
    ...(c.campaign_type === 'REFERRAL_PROGRAM' ? { referral_program: referralOf(v.referral) } : {}),
  };
}

/**
 * Only the members that changed are sent: the API passes dates and value on to the campaign's unused
 * codes, which would lose their own dates if unchanged members went along; and a stored member may hold
 * parts these inputs do not show.
 */
function changesOf(c: Campaign, v: Values): Record<string, unknown> {
  const before = bodyOf(c, valuesOf(c));
  return Object.fromEntries(Object.entries(bodyOf(c, v)).filter(([key, value]) => value !== undefined && JSON.stringify(value) !== JSON.stringify(before[key])));
}

function CampaignEditForm({ campaign: c }: { campaign: Campaign }) {
  const navigate = useNavigate();
  const client = useQueryClient();
  const can = useCan();
  const template = c.voucher;
  const monthlyExpiry = !template?.loyalty_card?.expiration_rules || template.loyalty_card.expiration_rules.period_type === 'MONTH';
  const assignments = c.validation_rules_assignments?.data ?? [];
  const ruleEditable =
    c.campaign_type !== 'LOYALTY_PROGRAM' &&
    can('POST', '/v1/validation-rules/:validationRuleId/assignments') &&
    can('DELETE', '/v1/validation-rules/:validationRuleId/assignments/:assignmentId');

  const [values, setValues] = useState<Values>(() => valuesOf(c));
  const set = <K extends keyof Values>(key: K) => (value: Values[K]) => setValues((current) => ({ ...current, [key]: value }));
  const { text, validity, windows, hours, discount, gift, card, referral, metadata } = values;
  const [rule, setRule] = useState<RuleChoice>(choiceOf(assignments.map((a) => a.rule_id)));
  const [ruleError, setRuleError] = useState<string | null>(null);
  const [submitted, setSubmitted] = useState(false);
  const form = useFormSubmit(FIELDS);

  /** Assigns the chosen rule and removes the others; the campaign itself is already saved. */
  const reassign = async (ruleId: string | null) => {
    if (ruleId !== null && !assignments.some((a) => a.rule_id === ruleId)) {
      await api('POST', `/v1/validation-rules/${ruleId}/assignments`, { related_object_type: 'campaign', related_object_id: c.id });
    }
    for (const a of assignments) if (a.rule_id !== ruleId) await api('DELETE', `/v1/validation-rules/${a.rule_id}/assignments/${a.id}`);
  };

  const save = form.submit(async () => {
    setRuleError(null);
    setSubmitted(true);
    if (ruleEditable && !choiceComplete(rule)) {
      setRuleError('Complete the conditions first');
      return;
    }
    const chosen = ruleEditable ? await ruleIdOf(rule, `${c.name} rule`) : null;
    if (chosen && !chosen.ok) {
      setRuleError(chosen.message);
      return;
    }
    await api('PUT', `/v1/campaigns/${c.id}`, changesOf(c, values));
    const refresh = () => client.invalidateQueries({ predicate: (q) => ['campaign', 'campaigns', 'validation-rules'].includes(String(q.queryKey[0])) });
    if (chosen) {
      try {
        await reassign(chosen.id);
      } catch (error) {
        await refresh();
        setRuleError(`The campaign was saved, but its rule did not change: ${messageOf(error)}`);
        return;
      }
    }
    await refresh();
    notifyDone('Campaign saved');
    navigate(`/campaigns/${c.id}`);
    // The campaign's page opens at its top (its header and summary), not scrolled as far as the form was.
    window.scrollTo(0, 0);
  });

  const perCode = template?.redemption?.quantity;
  return (
    <>
      <PageHeader title={`Edit ${c.name}`} description={TYPE_NAMES[c.campaign_type] ?? c.campaign_type} />
      <form onSubmit={(e) => void save(e)}>
        <Stack>
          <Card withBorder>
            <Stack>
              <TextInput label="Name" value={c.name} disabled description="The API keeps a campaign's name: integrations look the campaign up by it. Duplicate the campaign to use another name." />
              <Textarea label="Description" autosize value={text.description} onChange={(e) => set('text')({ ...text, description: e.currentTarget.value })} error={form.errorFor('description')} />
              <TextInput label="Category" description="A category's name; a new name makes a new category, empty removes it" value={text.category} onChange={(e) => set('text')({ ...text, category: e.currentTarget.value })} error={form.errorFor('category')} />
            </Stack>
          </Card>
          <Card withBorder>
            <Stack>
              <Title order={2} size="h5">
                {c.campaign_type === 'PROMOTION' ? 'Discounts' : 'Value of each code'}
              </Title>
              {discount && (
                <DiscountFields
                  value={discount}
                  onChange={(value) => {
                    // A refusal of the old figure (or type) no longer describes what the inputs show.
                    if (form.errorFor('discount')) form.setError(null);
                    set('discount')(value);
                  }}
                  error={form.errorFor('discount')}
                />
              )}
              {template?.type === 'DISCOUNT_VOUCHER' && !discount && (
                <Text size="sm">This campaign's {template.discount?.type ?? ''} discount is changed through the API; the console edits percent and amount discounts.</Text>
              )}
              {template?.type === 'GIFT_VOUCHER' && <GiftAmountInput value={gift} onChange={set('gift')} error={form.errorFor('gift')} />}
              {template?.type === 'LOYALTY_CARD' &&
                (monthlyExpiry ? (
                  <LoyaltyCardFields points={card.points} months={card.months} onChange={set('card')} errors={{ points: form.errorFor('points'), expiry: form.errorFor('expiry') }} />
                ) : (
                  <LoyaltyCardFields points={card.points} months="" onChange={(v) => set('card')({ ...card, points: v.points })} errors={{ points: form.errorFor('points') }} />
                ))}
              {c.campaign_type === 'REFERRAL_PROGRAM' && (
                <ReferralFields value={referral} onChange={set('referral')} errors={{ conversion: form.errorFor('conversion'), event: form.errorFor('event'), reward: form.errorFor('reward') }} />
              )}
              {c.campaign_type === 'PROMOTION' && <Text size="sm">Each tier has its own discount: add, change and order tiers on the campaign's page.</Text>}
              {c.campaign_type === 'LOYALTY_PROGRAM' && <Text size="sm">Earning rules, rewards and loyalty tiers are edited on the program's loyalty page.</Text>}
              {template && (
                <Text size="sm" c="dimmed" data-testid="limits">
                  Each code can be redeemed {perCode ? `${perCode} time(s)` : 'without limit'} (set when the codes are made). To limit redemptions per customer, use a rule with
                  the condition “Redemptions by this customer”.
                </Text>
              )}
            </Stack>
          </Card>
          <Card withBorder>
            <Stack>
              <Title order={2} size="h5">
                When it is valid
              </Title>
              <ValidityInputs value={validity} onChange={set('validity')} errors={{ start: form.errorFor('start'), end: form.errorFor('end') }} />
              <WindowFields value={windows} onChange={set('windows')} errors={{ days: form.errorFor('days'), timeframe: form.errorFor('timeframe') }} />
              <HoursFields rows={hours} onChange={set('hours')} error={form.errorFor('hours')} />
            </Stack>
          </Card>
          {ruleEditable && (
            <Card withBorder>
              <RulePicker value={rule} onChange={setRule} error={ruleError} showProblems={submitted} allowNew={can('POST', '/v1/validation-rules')} />
            </Card>
          )}
          <Card withBorder>
            <MetadataFields rows={metadata} onChange={set('metadata')} error={form.errorFor('metadata')} />
          </Card>
          {form.formError !== null && <ErrorAlert error={form.formError} title="The campaign was not saved" />}
          <Group>
            <Button type="submit" loading={form.busy}>
              Save changes
            </Button>
            <Button variant="default" onClick={() => navigate(`/campaigns/${c.id}`)}>
              Cancel
            </Button>
          </Group>
        </Stack>
      </form>
    </>
  );
}
