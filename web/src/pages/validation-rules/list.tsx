import { Button, Card, Loader, Table, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, withQuery } from '../../api/client.ts';
import { useCan } from '../../app/session.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { dateTime } from '../../components/format.ts';
import { PageHeader } from '../../components/PageHeader.tsx';
import { Pager } from '../../components/Pager.tsx';
import { useRuleNames } from '../../rules/catalog.ts';
import { describe, fromApi } from '../../rules/translate.ts';
import type { ListOf, ValidationRule } from './types.ts';

// The project's validation rules, newest first: each with its conditions in words and how many campaigns,
// tiers, vouchers or earning rules it is assigned to.

const LIMIT = 20;

export function ValidationRulesPage() {
  const can = useCan();
  const names = useRuleNames();
  const [page, setPage] = useState(1);
  const rules = useQuery({
    queryKey: ['validation-rules', page],
    queryFn: () => api<ListOf<ValidationRule>>('GET', withQuery('/v1/validation-rules', { limit: LIMIT, page })),
  });
  return (
    <>
      <PageHeader
        title="Validation rules"
        description="Conditions an order, customer or redemption must meet, assigned to campaigns, promotion tiers, vouchers and earning rules."
        actions={
          can('POST', '/v1/validation-rules') && (
            <Button component={Link} to="/validation-rules/new">
              New rule
            </Button>
          )
        }
      />
      {rules.isPending && <Loader aria-label="Loading rules" />}
      <ErrorAlert error={rules.error} title="The rules could not be read" />
      {rules.data && (
        <Card withBorder>
          {rules.data.total === 0 ? (
            <Text c="dimmed">No validation rules yet.</Text>
          ) : (
            <DataTable columns={['Name', 'Conditions', 'Assigned', 'Created']} minWidth={720}>
              {rules.data.data.map((rule) => {
                const read = fromApi(rule);
                return (
                  <Table.Tr key={rule.id} data-testid={`rule-${rule.id}`}>
                    <Table.Td>
                      <Link to={`/validation-rules/${rule.id}`}>{rule.name}</Link>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm" lineClamp={3}>
                        {read.ok ? describe(read.model, names) : read.reason}
                      </Text>
                    </Table.Td>
                    <Table.Td>{rule.assignments_count}</Table.Td>
                    <Table.Td>{dateTime(rule.created_at)}</Table.Td>
                  </Table.Tr>
                );
              })}
            </DataTable>
          )}
          <Pager page={page} limit={LIMIT} count={rules.data.data.length} total={rules.data.total} onPage={setPage} />
        </Card>
      )}
    </>
  );
}
