import { ActionIcon, Button, Card, Group, Stack, Text, TextInput, Textarea, Title } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { api } from '../../api/client.ts';
import { fieldOfError, messageOf } from '../../api/field-errors.ts';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { RuleBuilder } from '../../rules/RuleBuilder.tsx';
import { EMPTY_MODEL, type RuleModel } from '../../rules/translate.ts';
import { createRuleIfAny, DiscountFields, discountOf, ruleComplete, ValidityInputs, validityOf, type DiscountValue, type Validity } from './form-parts.tsx';
import type { Campaign } from './list.tsx';

// A promotion campaign: no codes, a list of tiers (each a discount with its own validation rule, applied
// in hierarchy order). Each tier's rule is created first; the campaign create carries the tiers
// (`promotion.tiers`), so they are all stored or none.

interface TierForm {
  name: string;
  banner: string;
  discount: DiscountValue;
  rule: RuleModel;
}

const newTier = (n: number): TierForm => ({ name: `Tier ${n}`, banner: '', discount: { kind: 'PERCENT', value: 10 }, rule: EMPTY_MODEL });

export function NewPromotionPage() {
  const navigate = useNavigate();
  const client = useQueryClient();
  const [form, setForm] = useState({ name: '', description: '' });
  const [validity, setValidity] = useState<Validity>({ start: '', end: '' });
  const [tiers, setTiers] = useState<TierForm[]>([newTier(1)]);
  const [error, setError] = useState<unknown>(null);
  const [ruleErrors, setRuleErrors] = useState<Record<number, string>>({});
  const [submitted, setSubmitted] = useState(false);
  const [busy, setBusy] = useState(false);

  // Which input shows the API's error: the campaign's own members, and each tier's (promotion.tiers.N.…).
  const fields: Record<string, string> = { name: 'name', description: 'description', start: 'start_date', end: 'expiration_date' };
  tiers.forEach((_, i) => {
    fields[`tier${i}.name`] = `promotion.tiers.${i}.name`;
    fields[`tier${i}.banner`] = `promotion.tiers.${i}.banner`;
    fields[`tier${i}.discount`] = `promotion.tiers.${i}.action`;
    fields[`tier${i}`] = `promotion.tiers.${i}`;
  });
  const field = fieldOfError(error, fields);
  const errorFor = (name: string) => (field === name ? messageOf(error) : undefined);
  const updateTier = (index: number, patch: Partial<TierForm>) => setTiers(tiers.map((t, i) => (i === index ? { ...t, ...patch } : t)));

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    setError(null);
    setRuleErrors({});
    setSubmitted(true);
    const incomplete = tiers.findIndex((t) => !ruleComplete(t.rule));
    if (incomplete >= 0) {
      setRuleErrors({ [incomplete]: 'Complete the conditions first' });
      return;
    }
    setBusy(true);
    try {
      const ruleIds: Array<string | null> = [];
      for (const [i, tier] of tiers.entries()) {
        const created = await createRuleIfAny(`${form.name || 'Promotion'} · ${tier.name} rule`, tier.rule);
        if (!created.ok) {
          setRuleErrors({ [i]: created.message });
          return;
        }
        ruleIds.push(created.id);
      }
      const campaign = await api<Campaign>('POST', '/v1/campaigns', {
        name: form.name,
        ...(form.description ? { description: form.description } : {}),
        campaign_type: 'PROMOTION',
        ...validityOf(validity),
        promotion: {
          tiers: tiers.map((tier, i) => ({
            name: tier.name,
            ...(tier.banner ? { banner: tier.banner } : {}),
            action: { discount: discountOf(tier.discount) },
            hierarchy: i + 1,
            ...(ruleIds[i] ? { validation_rules: [ruleIds[i]] } : {}),
          })),
        },
      });
      await client.invalidateQueries({ queryKey: ['campaigns'] });
      navigate(`/campaigns/${campaign.id}`);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <PageHeader title="New promotion" description="Discounts applied without a code, tier by tier (the first tier whose rule the order meets comes first)." />
      <form onSubmit={(e) => void submit(e)}>
        <Stack>
          <Card withBorder>
            <Stack>
              <TextInput label="Name" required value={form.name} onChange={(e) => setForm({ ...form, name: e.currentTarget.value })} error={errorFor('name')} />
              <Textarea label="Description" autosize value={form.description} onChange={(e) => setForm({ ...form, description: e.currentTarget.value })} error={errorFor('description')} />
              <ValidityInputs value={validity} onChange={setValidity} errors={{ start: errorFor('start'), end: errorFor('end') }} />
            </Stack>
          </Card>
          {tiers.map((tier, i) => (
            <Card withBorder key={i} data-testid={`tier-${i}`}>
              <Stack>
                <Group justify="space-between">
                  <Title order={2} size="h5">
                    Tier {i + 1}
                  </Title>
                  {tiers.length > 1 && (
                    <ActionIcon variant="subtle" color="red" aria-label={`Remove tier ${i + 1}`} onClick={() => setTiers(tiers.filter((_, j) => j !== i))}>
                      ✕
                    </ActionIcon>
                  )}
                </Group>
                <Group grow align="flex-start" wrap="wrap">
                  <TextInput label="Tier name" required value={tier.name} onChange={(e) => updateTier(i, { name: e.currentTarget.value })} error={errorFor(`tier${i}.name`) ?? errorFor(`tier${i}`)} miw={200} />
                  <TextInput label="Banner (shown to customers)" value={tier.banner} onChange={(e) => updateTier(i, { banner: e.currentTarget.value })} error={errorFor(`tier${i}.banner`)} miw={200} />
                </Group>
                <DiscountFields label={`Tier ${i + 1}`} value={tier.discount} onChange={(discount) => updateTier(i, { discount })} error={errorFor(`tier${i}.discount`)} />
                <RuleBuilder model={tier.rule} onChange={(rule) => updateTier(i, { rule })} error={ruleErrors[i] ?? null} showProblems={submitted} />
              </Stack>
            </Card>
          ))}
          <Group>
            <Button variant="light" onClick={() => setTiers([...tiers, newTier(tiers.length + 1)])}>
              Add tier
            </Button>
            <Text size="sm" c="dimmed">
              {tiers.length} tier(s), applied in this order
            </Text>
          </Group>
          {error !== null && field === null && <ErrorAlert error={error} title="The promotion was not created" />}
          <Group>
            <Button type="submit" loading={busy}>
              Create promotion
            </Button>
            <Button variant="default" onClick={() => navigate('/campaigns')}>
              Cancel
            </Button>
          </Group>
        </Stack>
      </form>
    </>
  );
}

