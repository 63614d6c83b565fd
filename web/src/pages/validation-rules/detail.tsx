import { Button, Card, Loader, Stack, Text, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';
import { api } from '../../api/client.ts';
import { useCan } from '../../app/session.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { confirmThen } from '../../components/forms.tsx';
import { dateTime } from '../../components/format.ts';
import { Json } from '../../components/Json.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { useRuleNames } from '../../rules/catalog.ts';
import { describe, fromApi } from '../../rules/translate.ts';
import { AssignmentsCard, TargetLine, useAssignments } from './assignments.tsx';
import type { ValidationRule } from './types.ts';

// One validation rule: its conditions in words and exactly as stored, where it is assigned, and the
// ways to change it (edit, assign, unassign, delete).

export function ValidationRulePage() {
  const { ruleId = '' } = useParams();
  const can = useCan();
  const navigate = useNavigate();
  const client = useQueryClient();
  const names = useRuleNames();
  const rule = useQuery({ queryKey: ['validation-rule', ruleId], queryFn: () => api<ValidationRule>('GET', `/v1/validation-rules/${encodeURIComponent(ruleId)}`) });
  const assignments = useAssignments(ruleId);
  if (rule.isPending) return <Loader aria-label="Loading rule" />;
  if (rule.isError) return <ErrorAlert error={rule.error} title="Rule not found" />;
  const read = fromApi(rule.data);
  const assigned = assignments.data?.data ?? [];

  const remove = () =>
    confirmThen({
      title: `Delete ${rule.data.name}?`,
      body:
        assigned.length === 0 ? (
          <Text size="sm">The rule is not assigned anywhere. This cannot be undone.</Text>
        ) : (
          <Stack gap="xs">
            <Text size="sm">Deleting it also removes it from:</Text>
            <ul style={{ margin: 0 }} data-testid="delete-assignments">
              {assigned.map((a) => (
                <TargetLine key={a.id} assignment={a} />
              ))}
            </ul>
            <Text size="sm">These then accept every order the rule refused. This cannot be undone.</Text>
          </Stack>
        ),
      confirm: 'Delete rule',
      done: `Rule ${rule.data.name} deleted`,
      failed: 'The rule was not deleted',
      action: async () => {
        await api('DELETE', `/v1/validation-rules/${encodeURIComponent(ruleId)}`);
        await client.invalidateQueries({ queryKey: ['validation-rules'] });
        void navigate('/validation-rules');
      },
    });

  return (
    <>
      <PageHeader
        title={rule.data.name}
        description={`Created ${dateTime(rule.data.created_at)}${rule.data.updated_at ? ` · changed ${dateTime(rule.data.updated_at)}` : ''}`}
        actions={
          <>
            {can('PUT', '/v1/validation-rules/:validationRuleId') && (
              <Button component={Link} to={`/validation-rules/${rule.data.id}/edit`}>
                Edit
              </Button>
            )}
            {can('DELETE', '/v1/validation-rules/:validationRuleId') && (
              <Button color="red" variant="light" onClick={remove}>
                Delete
              </Button>
            )}
          </>
        }
      />
      <Stack>
        <Card withBorder>
          <Stack gap="xs">
            <Title order={2} size="h5">
              Conditions
            </Title>
            <Text size="sm" data-testid="rule-description">
              {read.ok ? describe(read.model, names) : `The builder cannot show this rule (${read.reason}); see it as stored below.`}
            </Text>
            {rule.data.error && (
              <Text size="sm" c="dimmed">
                When it fails: “{rule.data.error.message}”
              </Text>
            )}
          </Stack>
        </Card>
        <AssignmentsCard ruleId={rule.data.id} />
        <Card withBorder>
          <Stack gap="xs">
            <Title order={2} size="h5">
              As stored
            </Title>
            <Json value={{ rules: rule.data.rules, applicable_to: rule.data.applicable_to, ...(rule.data.error ? { error: rule.data.error } : {}) }} label="Stored rule" />
          </Stack>
        </Card>
      </Stack>
    </>
  );
}
