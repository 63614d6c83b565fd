import { Select, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api, listOf, withQuery } from '../../api/client.ts';
import { RuleBuilder } from '../../rules/RuleBuilder.tsx';
import { describe, EMPTY_MODEL, fromApi, type RuleModel } from '../../rules/translate.ts';
import { createRuleIfAny, ruleComplete, type RuleResult } from './form-parts.tsx';

// Choosing the validation rule of a campaign or tier being edited: none, one that exists (described in
// words), or a new one built with the rule builder and created when the form is saved.

export type RuleChoice = { mode: 'none' } | { mode: 'existing'; id: string } | { mode: 'new'; model: RuleModel };

interface StoredRule {
  id: string;
  name: string;
  rules: Record<string, unknown>;
}

export function RuleSummary({ ruleId }: { ruleId: string }) {
  const rule = useQuery({ queryKey: ['validation-rule', ruleId], queryFn: () => api<StoredRule>('GET', `/v1/validation-rules/${ruleId}`) });
  if (!rule.data) return <Text size="sm">{ruleId}</Text>;
  const read = fromApi(rule.data);
  return (
    <Text size="sm" data-testid="campaign-rule">
      {read.ok ? describe(read.model) : `${rule.data.name}: ${read.reason}`}
    </Text>
  );
}

export const choiceOf = (ruleIds: string[]): RuleChoice => (ruleIds[0] ? { mode: 'existing', id: ruleIds[0] } : { mode: 'none' });

/** The rule id the choice stands for, creating the new rule first; the API's refusal as text. */
export async function ruleIdOf(choice: RuleChoice, name: string): Promise<RuleResult> {
  if (choice.mode === 'none') return { ok: true, id: null };
  if (choice.mode === 'existing') return { ok: true, id: choice.id };
  return createRuleIfAny(name, choice.model);
}

/** Whether saving may go ahead: a rule being built must be complete (the builder names what is missing). */
export const choiceComplete = (choice: RuleChoice): boolean => choice.mode !== 'new' || ruleComplete(choice.model);

export function RulePicker({ value, onChange, error, showProblems, label = 'Validation rule', allowNew = true }: {
  value: RuleChoice;
  /** Whether the role may create rules (POST /v1/validation-rules). */
  allowNew?: boolean;
  onChange: (value: RuleChoice) => void;
  error?: string | null;
  showProblems?: boolean;
  label?: string;
}) {
  const rules = useQuery({
    queryKey: ['validation-rules', 'all'],
    queryFn: async () => listOf<StoredRule>(await api('GET', withQuery('/v1/validation-rules', { limit: 100 })), 'data').items,
  });
  const known = rules.data ?? [];
  const current = value.mode === 'existing' ? value.id : value.mode;
  const data = [
    { value: 'none', label: 'No rule: every order qualifies' },
    ...known.map((r) => ({ value: r.id, label: r.name })),
    // A rule assigned but beyond the first page of rules still shows as chosen.
    ...(value.mode === 'existing' && !known.some((r) => r.id === value.id) ? [{ value: value.id, label: value.id }] : []),
    ...(allowNew ? [{ value: 'new', label: 'Build a new rule…' }] : []),
  ];
  return (
    <Stack gap="xs">
      <Select
        label={label}
        data={data}
        value={current}
        allowDeselect={false}
        searchable
        onChange={(picked) => {
          if (picked === null || picked === 'none') onChange({ mode: 'none' });
          else if (picked === 'new') onChange({ mode: 'new', model: EMPTY_MODEL });
          else onChange({ mode: 'existing', id: picked });
        }}
        error={value.mode !== 'new' ? error : undefined}
      />
      {value.mode === 'existing' && <RuleSummary ruleId={value.id} />}
      {value.mode === 'new' && <RuleBuilder model={value.model} onChange={(model) => onChange({ mode: 'new', model })} error={error ?? null} showProblems={showProblems ?? false} />}
    </Stack>
  );
}
