import { Button, Card, Group, Loader, SegmentedControl, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api } from '../../api/client.ts';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { useFormSubmit } from '../../components/forms.tsx';
import { notifyDone } from '../../components/notify.ts';
import { PageHeader } from '../../components/PageHeader.tsx';
import { RuleBuilder } from '../../rules/RuleBuilder.tsx';
import { EMPTY_MODEL, fromApi, problemsOf, toApi, type RuleModel } from '../../rules/translate.ts';
import type { ValidationRule } from './types.ts';

// Creating and editing a validation rule: its name, the message shown when it fails, and its conditions,
// built with the rule builder, or as JSON when the stored rule is beyond what the builder shows.

const FIELDS = { name: 'name', message: 'error.message' };

/** The rule members a JSON edit sends: exactly what was typed, as the API stores it. */
function jsonOf(rule: Pick<ValidationRule, 'rules' | 'applicable_to'>): string {
  return JSON.stringify({ rules: rule.rules, applicable_to: rule.applicable_to }, null, 2);
}

function RuleForm({ stored }: { stored: ValidationRule | null }) {
  const navigate = useNavigate();
  const client = useQueryClient();
  const read = stored ? fromApi(stored) : ({ ok: true, model: EMPTY_MODEL } as const);
  const [name, setName] = useState(stored?.name ?? '');
  const [message, setMessage] = useState(stored?.error?.message ?? '');
  const [model, setModel] = useState<RuleModel>(read.ok ? read.model : EMPTY_MODEL);
  const [mode, setMode] = useState<'builder' | 'json'>(read.ok ? 'builder' : 'json');
  const [json, setJson] = useState(stored ? jsonOf(stored) : jsonOf({ rules: toApi(EMPTY_MODEL).rules, applicable_to: { included: [], excluded: [], included_all: false } }));
  const [builderRefusal, setBuilderRefusal] = useState<string | null>(read.ok ? null : read.reason);
  const [submitted, setSubmitted] = useState(false);
  const form = useFormSubmit(FIELDS);

  const definition = (): Record<string, unknown> | string => {
    if (mode === 'json') {
      try {
        const parsed: unknown = JSON.parse(json);
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return 'The JSON must be an object with rules and applicable_to';
        return parsed as Record<string, unknown>;
      } catch (error) {
        return `The JSON does not parse: ${(error as Error).message}`;
      }
    }
    if (problemsOf(model).length > 0) return 'Complete the conditions first';
    // An update keeps members not sent, so an emptied "applies to" is sent empty rather than left out.
    const built = toApi(model);
    return { ...built, applicable_to: built.applicable_to ?? { included: [], excluded: [] } };
  };

  const save = form.submit(async () => {
    setSubmitted(true);
    const body = definition();
    if (typeof body === 'string') throw new Error(body);
    const payload = { name, ...body, error: message.trim() === '' ? null : { message: message.trim() } };
    const saved = stored
      ? await api<ValidationRule>('PUT', `/v1/validation-rules/${stored.id}`, payload)
      : await api<ValidationRule>('POST', '/v1/validation-rules', payload);
    await client.invalidateQueries({ queryKey: ['validation-rules'] });
    await client.invalidateQueries({ queryKey: ['validation-rule', saved.id] });
    notifyDone(stored ? `Rule ${saved.name} saved` : `Rule ${saved.name} created`);
    void navigate(`/validation-rules/${saved.id}`);
  });

  return (
    <form onSubmit={(e) => void save(e)}>
      <Stack>
        <Card withBorder>
          <Stack>
            <TextInput label="Name" required value={name} onChange={(e) => setName(e.currentTarget.value)} error={form.errorFor('name')} />
            <TextInput
              label="Message when the rule fails (optional)"
              placeholder="e.g. Add a pair of running shoes to use this code"
              value={message}
              onChange={(e) => setMessage(e.currentTarget.value)}
              error={form.errorFor('message')}
            />
          </Stack>
        </Card>
        <Group justify="space-between">
          <SegmentedControl
            aria-label="Edit with"
            value={mode}
            onChange={(value) => {
              if (value === 'json') {
                setJson(jsonOf({ ...toApi(model), applicable_to: { included: model.applicableTo, excluded: model.excluded, included_all: false } }));
                setMode('json');
                return;
              }
              const back = backToBuilder(json);
              setBuilderRefusal(back.ok ? null : back.reason);
              if (back.ok) {
                setModel(back.model);
                setMode('builder');
              }
            }}
            data={[
              { value: 'builder', label: 'Builder' },
              { value: 'json', label: 'JSON' },
            ]}
          />
        </Group>
        {mode === 'json' && builderRefusal !== null && (
          <Text size="sm" c="dimmed" data-testid="builder-refusal">
            The builder cannot show this rule faithfully ({builderRefusal}); edit it as JSON.
          </Text>
        )}
        {mode === 'builder' ? (
          <RuleBuilder model={model} onChange={setModel} showProblems={submitted} />
        ) : (
          <Textarea label="Rule as JSON (rules and applicable_to)" autosize minRows={8} maxRows={30} value={json} onChange={(e) => setJson(e.currentTarget.value)} styles={{ input: { fontFamily: 'monospace' } }} />
        )}
        {form.formError !== null && <ErrorAlert error={form.formError} title="The rule was not saved" />}
        <Group>
          <Button type="submit" loading={form.busy}>
            {stored ? 'Save rule' : 'Create rule'}
          </Button>
          <Button variant="default" component={Link} to={stored ? `/validation-rules/${stored.id}` : '/validation-rules'}>
            Cancel
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** The JSON typed read back into the builder's model, or why it cannot be. */
function backToBuilder(text: string): ReturnType<typeof fromApi> {
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return fromApi(parsed as Parameters<typeof fromApi>[0]);
  } catch {
    // reported below
  }
  return { ok: false, reason: 'the JSON is not an object with rules and applicable_to' };
}

export function NewValidationRulePage() {
  return (
    <>
      <PageHeader title="New validation rule" />
      <RuleForm stored={null} />
    </>
  );
}

export function EditValidationRulePage() {
  const { ruleId = '' } = useParams();
  const rule = useQuery({ queryKey: ['validation-rule', ruleId], queryFn: () => api<ValidationRule>('GET', `/v1/validation-rules/${encodeURIComponent(ruleId)}`) });
  if (rule.isPending) return <Loader aria-label="Loading rule" />;
  if (rule.isError) return <ErrorAlert error={rule.error} title="Rule not found" />;
  return (
    <>
      <PageHeader title={`Edit ${rule.data.name}`} />
      <RuleForm key={rule.data.id} stored={rule.data} />
    </>
  );
}
