import { Button, Card, Group, SimpleGrid, Stack, TextInput, Textarea } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { api } from '../../api/client.ts';
import { fieldOfError, messageOf } from '../../api/field-errors.ts';
import { createRuleIfAny, DiscountFields, discountOf, type DiscountKind } from './form-parts.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { RuleBuilder } from '../../rules/RuleBuilder.tsx';
import { EMPTY_MODEL, problemsOf, type RuleModel } from '../../rules/translate.ts';
import { CodeConfigFields } from './code-config.tsx';
import { codeOptionsBody, defaultCodeOptions } from './code-options.ts';
import type { Campaign } from './list.tsx';

// A discount coupon campaign: its discount, its codes, and a validation rule built with the builder. The
// rule is created first (POST /v1/validation-rules) and assigned by the campaign create; each request's
// errors are shown next to the fields they name.

const CAMPAIGN_FIELDS = {
  name: 'name',
  description: 'description',
  value: 'voucher.discount',
  count: 'vouchers_count',
  prefix: 'voucher.code_config',
  start: 'start_date',
  end: 'expiration_date',
};

export function NewCampaignPage() {
  const navigate = useNavigate();
  const client = useQueryClient();
  const [form, setForm] = useState({ name: '', description: '', kind: 'PERCENT', value: 10 as number | string, start: '', end: '' });
  const [codes, setCodes] = useState(defaultCodeOptions(10));
  const [rule, setRule] = useState<RuleModel>(EMPTY_MODEL);
  const [campaignError, setCampaignError] = useState<unknown>(null);
  const [ruleError, setRuleError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [submitted, setSubmitted] = useState(false);
  const field = fieldOfError(campaignError, CAMPAIGN_FIELDS);
  const errorFor = (name: keyof typeof CAMPAIGN_FIELDS) => (field === name ? messageOf(campaignError) : undefined);

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    setCampaignError(null);
    setRuleError(null);
    setSubmitted(true);
    if (problemsOf(rule).length > 0) {
      setRuleError('Complete the conditions first');
      return;
    }
    setBusy(true);
    try {
      const created = await createRuleIfAny(`${form.name || 'Campaign'} rule`, rule);
      if (!created.ok) {
        setRuleError(created.message);
        return;
      }
      const ruleId = created.id;
      const discount = discountOf({ kind: form.kind as DiscountKind, value: form.value });
      const campaign = await api<Campaign>('POST', '/v1/campaigns', {
        name: form.name,
        ...(form.description ? { description: form.description } : {}),
        campaign_type: 'DISCOUNT_COUPONS',
        type: 'AUTO_UPDATE',
        vouchers_count: codeOptionsBody(codes).vouchers_count,
        voucher: { type: 'DISCOUNT_VOUCHER', discount, ...codeOptionsBody(codes).voucher },
        ...(form.start ? { start_date: new Date(form.start).toISOString() } : {}),
        ...(form.end ? { expiration_date: new Date(form.end).toISOString() } : {}),
        ...(ruleId ? { validation_rules: [ruleId] } : {}),
      });
      await client.invalidateQueries({ queryKey: ['campaigns'] });
      navigate(`/campaigns/${campaign.id}`);
    } catch (error) {
      setCampaignError(error);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <PageHeader title="New discount coupon campaign" description="Unique codes that give a discount, with an optional validation rule." />
      <form onSubmit={(e) => void submit(e)}>
        <Stack>
          <Card withBorder>
            <Stack>
              <TextInput label="Name" required value={form.name} onChange={(e) => setForm({ ...form, name: e.currentTarget.value })} error={errorFor('name')} />
              <Textarea label="Description" autosize value={form.description} onChange={(e) => setForm({ ...form, description: e.currentTarget.value })} error={errorFor('description')} />
              <DiscountFields value={{ kind: form.kind as DiscountKind, value: form.value }} onChange={({ kind, value }) => setForm({ ...form, kind, value })} error={errorFor('value')} />
              <CodeConfigFields value={codes} onChange={setCodes} errors={{ count: errorFor('count'), config: errorFor('prefix') }} />
              <SimpleGrid cols={{ base: 1, sm: 2 }}>
                <TextInput label="Starts" type="datetime-local" value={form.start} onChange={(e) => setForm({ ...form, start: e.currentTarget.value })} error={errorFor('start')} />
                <TextInput label="Expires" type="datetime-local" value={form.end} onChange={(e) => setForm({ ...form, end: e.currentTarget.value })} error={errorFor('end')} />
              </SimpleGrid>
            </Stack>
          </Card>
          <RuleBuilder model={rule} onChange={setRule} error={ruleError} showProblems={submitted} />
          {campaignError !== null && field === null && <ErrorAlert error={campaignError} title="The campaign was not created" />}
          <Group>
            <Button type="submit" loading={busy}>
              Create campaign
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
