import { Button, Card, Group, Stack, TextInput, Textarea } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { api } from '../../api/client.ts';
import { fieldOfError, messageOf } from '../../api/field-errors.ts';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { RuleBuilder } from '../../rules/RuleBuilder.tsx';
import { EMPTY_MODEL, type RuleModel } from '../../rules/translate.ts';
import { createRuleIfAny, ruleComplete, ValidityInputs, validityOf, type Validity } from './form-parts.tsx';
import { CodeConfigFields } from './code-config.tsx';
import { codeOptionsBody, defaultCodeOptions, type CodeOptions } from './code-options.ts';
import type { Campaign } from './list.tsx';

// The form of campaigns that hand out codes (gift cards, loyalty cards, referral codes): name, dates, codes
// and, where the type takes one, a validation rule; each type adds its own inputs (`children`) and members
// (`body`). The rule is created first, then POST /v1/campaigns; the API's error shows next to the input
// whose member it names (`fields`: input name → API path), or above the buttons.

export interface CodeCampaignFormProps {
  title: string;
  description: string;
  submitLabel: string;
  /** The type's own members of the create body. */
  body: () => Record<string, unknown>;
  /** The type's inputs; `errorFor(name)` gives the API's message for one of its `fields`. */
  children: (errorFor: (name: string) => string | undefined) => React.ReactNode;
  fields?: Record<string, string>;
  withRule?: boolean;
  defaultCount?: number;
  /** Where to go once created (default: the campaign's page). */
  next?: (campaign: Campaign) => string;
}

const COMMON_FIELDS = { name: 'name', description: 'description', count: 'vouchers_count', prefix: 'voucher.code_config', start: 'start_date', end: 'expiration_date' };

export function CodeCampaignForm({ title, description, submitLabel, body, children, fields = {}, withRule = true, defaultCount = 10, next }: CodeCampaignFormProps) {
  const navigate = useNavigate();
  const client = useQueryClient();
  const [form, setForm] = useState({ name: '', description: '' });
  const [codes, setCodes] = useState<CodeOptions>(defaultCodeOptions(defaultCount));
  const [validity, setValidity] = useState<Validity>({ start: '', end: '' });
  const [rule, setRule] = useState<RuleModel>(EMPTY_MODEL);
  const [error, setError] = useState<unknown>(null);
  const [ruleError, setRuleError] = useState<string | null>(null);
  const [submitted, setSubmitted] = useState(false);
  const [busy, setBusy] = useState(false);
  const field = fieldOfError(error, { ...COMMON_FIELDS, ...fields });
  const errorFor = (name: string) => (field === name ? messageOf(error) : undefined);

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    setError(null);
    setRuleError(null);
    setSubmitted(true);
    if (withRule && !ruleComplete(rule)) {
      setRuleError('Complete the conditions first');
      return;
    }
    setBusy(true);
    try {
      const created = withRule ? await createRuleIfAny(`${form.name || 'Campaign'} rule`, rule) : ({ ok: true, id: null } as const);
      if (!created.ok) {
        setRuleError(created.message);
        return;
      }
      const specific = body();
      const voucher = (specific.voucher ?? {}) as Record<string, unknown>;
      const campaign = await api<Campaign>('POST', '/v1/campaigns', {
        name: form.name,
        ...(form.description ? { description: form.description } : {}),
        type: 'AUTO_UPDATE',
        vouchers_count: codeOptionsBody(codes).vouchers_count,
        ...validityOf(validity),
        ...specific,
        voucher: { ...voucher, ...codeOptionsBody(codes).voucher },
        ...(created.id ? { validation_rules: [created.id] } : {}),
      });
      await client.invalidateQueries({ queryKey: ['campaigns'] });
      navigate(next ? next(campaign) : `/campaigns/${campaign.id}`);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <PageHeader title={title} description={description} />
      <form onSubmit={(e) => void submit(e)}>
        <Stack>
          <Card withBorder>
            <Stack>
              <TextInput label="Name" required value={form.name} onChange={(e) => setForm({ ...form, name: e.currentTarget.value })} error={errorFor('name')} />
              <Textarea label="Description" autosize value={form.description} onChange={(e) => setForm({ ...form, description: e.currentTarget.value })} error={errorFor('description')} />
              {children(errorFor)}
              <CodeConfigFields value={codes} onChange={setCodes} errors={{ count: errorFor('count'), config: errorFor('prefix') }} />
              <ValidityInputs value={validity} onChange={setValidity} errors={{ start: errorFor('start'), end: errorFor('end') }} />
            </Stack>
          </Card>
          {withRule && <RuleBuilder model={rule} onChange={setRule} error={ruleError} showProblems={submitted} />}
          {error !== null && field === null && <ErrorAlert error={error} title="The campaign was not created" />}
          <Group>
            <Button type="submit" loading={busy}>
              {submitLabel}
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
