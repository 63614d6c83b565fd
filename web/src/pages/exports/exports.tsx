import { ActionIcon, Anchor, Badge, Button, Card, Group, Loader, MultiSelect, Progress, SegmentedControl, Select, Stack, Table, Text, TextInput } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { EXPORT_FILTER_CATALOGS, operatorsOf } from '../../../../src/domain/exports/filters.ts';
import { EXPORT_OBJECTS, EXPORTED_OBJECTS, type ExportedObject } from '../../../../src/domain/exports/objects.ts';
import { api, listOf, withQuery } from '../../api/client.ts';
import { useCan } from '../../app/session.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { FormCard, useFormSubmit } from '../../components/forms.tsx';
import { Json } from '../../components/Json.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { Pager } from '../../components/Pager.tsx';
import { dateTime } from '../../components/format.ts';
import { notifyDone } from '../../components/notify.ts';

// Exports (POST/GET /v1/exports): choose what to export, its CSV columns, order and filters (the filter
// the API will receive is shown as it is built); each export's status refreshes while the worker runs it,
// and a finished one is downloaded from the link the API gives (it carries its own token).

interface ExportRecord {
  id: string;
  created_at: string;
  status: 'SCHEDULED' | 'IN_PROGRESS' | 'DONE' | 'ERROR';
  exported_object: ExportedObject;
  parameters: { fields: string[]; order: string; filters: Record<string, unknown> };
  result: { url: string | null; url_expires_at?: string; row_count?: number; message?: string } | null;
}

interface FilterRow {
  field: string;
  operator: string;
  value: string;
}

const LIMIT = 20;
const STATUS_COLOR = { SCHEDULED: 'gray', IN_PROGRESS: 'blue', DONE: 'green', ERROR: 'red' } as const;
/** Operators that take no operand, and those that take several. */
const NO_VALUE = new Set(['$has_value', '$is_unknown']);
const MANY_VALUES = new Set(['$in', '$not_in']);

const filterFields = (object: ExportedObject) => Object.keys(EXPORT_FILTER_CATALOGS[object].fields);

function operatorsFor(object: ExportedObject, field: string): string[] {
  const spec = EXPORT_FILTER_CATALOGS[object].fields[field];
  if (!spec) return [];
  const all = operatorsOf(spec);
  return [...(spec.only ? all.filter((op) => spec.only?.includes(op)) : all)];
}

/** The `filters` member as the API takes it; values typed as text (numbers and booleans as the API reads them). */
export function filtersOf(junction: string, rows: FilterRow[]): Record<string, unknown> | null {
  const complete = rows.filter((r) => r.field !== '' && r.operator !== '');
  if (complete.length === 0) return null;
  const out: Record<string, unknown> = { junction };
  for (const row of complete) {
    const values = NO_VALUE.has(row.operator) ? [] : MANY_VALUES.has(row.operator) ? row.value.split(',').map((v) => v.trim()).filter((v) => v !== '') : [row.value.trim()];
    const existing = (out[row.field] as { conditions: Record<string, unknown[]> } | undefined)?.conditions ?? {};
    out[row.field] = { conditions: { ...existing, [row.operator]: values } };
  }
  return out;
}

function Status({ record }: { record: ExportRecord }) {
  const running = record.status === 'SCHEDULED' || record.status === 'IN_PROGRESS';
  return (
    <Stack gap={4}>
      <Badge color={STATUS_COLOR[record.status]} variant="light" data-testid="export-status">
        {record.status}
      </Badge>
      {running && <Progress value={100} animated striped size="sm" w={120} aria-label={`Export ${record.id} running`} />}
      {record.status === 'ERROR' && (
        <Text size="xs" c="red">
          {record.result?.message}
        </Text>
      )}
    </Stack>
  );
}

const FIELDS = { object: 'exported_object', fields: 'parameters.fields', order: 'parameters.order', filters: 'parameters.filters' };

export function ExportsPage() {
  const client = useQueryClient();
  const [page, setPage] = useState(1);
  const exportsList = useQuery({
    queryKey: ['exports', page],
    queryFn: async () => listOf<ExportRecord>(await api('GET', withQuery('/v1/exports', { limit: LIMIT, page, order: '-created_at' }))),
    refetchInterval: (query) => (query.state.data?.items.some((e) => e.status === 'SCHEDULED' || e.status === 'IN_PROGRESS') ? 1500 : false),
  });
  const can = useCan();
  const [object, setObject] = useState<ExportedObject>('voucher');
  const [fields, setFields] = useState<string[]>([...EXPORT_OBJECTS.voucher.defaultFields]);
  const [order, setOrder] = useState<string>(EXPORT_OBJECTS.voucher.defaultOrder);
  const [junction, setJunction] = useState('and');
  const [rows, setRows] = useState<FilterRow[]>([]);
  const { busy, errorFor, formError, setError, submit } = useFormSubmit(FIELDS);
  const spec = EXPORT_OBJECTS[object];
  const filters = filtersOf(junction, rows);

  const choose = (next: ExportedObject) => {
    setObject(next);
    setFields([...EXPORT_OBJECTS[next].defaultFields]);
    setOrder(EXPORT_OBJECTS[next].defaultOrder);
    setRows([]);
    setError(null);
  };
  const updateRow = (index: number, patch: Partial<FilterRow>) => setRows(rows.map((r, i) => (i === index ? { ...r, ...patch } : r)));

  const create = submit(async () => {
    const created = await api<ExportRecord>('POST', '/v1/exports', { exported_object: object, parameters: { fields, order, ...(filters ? { filters } : {}) } });
    notifyDone(`Export ${created.id} scheduled`);
    setPage(1);
    await client.invalidateQueries({ queryKey: ['exports'] });
  });

  return (
    <Stack>
      <PageHeader title="Exports" description="CSV files of vouchers, redemptions, customers, publications, orders and loyalty records, made in the background." />
      {can('POST', '/v1/exports') && (
      <FormCard title="New export" onSubmit={create} error={formError} errorTitle="The export was not created" submit="Export" busy={busy}>
        <Group align="flex-start" wrap="wrap">
          <Select label="Export" value={object} allowDeselect={false} data={[...EXPORTED_OBJECTS]} onChange={(value) => choose((value ?? 'voucher') as ExportedObject)} error={errorFor('object')} w={220} />
          <Select label="Order" value={order} allowDeselect={false} data={[...spec.orders]} onChange={(value) => setOrder(value ?? spec.defaultOrder)} error={errorFor('order')} w={220} />
        </Group>
        <MultiSelect label="Columns" description="In this order; empty: the default columns" searchable data={[...spec.allowedFields]} value={fields} onChange={setFields} error={errorFor('fields')} />
        <Stack gap="xs">
          <Group justify="space-between">
            <Text size="sm" fw={500}>
              Filters
            </Text>
            {rows.length > 1 && (
              <SegmentedControl
                size="xs"
                aria-label="Join filters with"
                value={junction}
                onChange={setJunction}
                data={[
                  { value: 'and', label: 'All (and)' },
                  { value: 'or', label: 'Any (or)' },
                ]}
              />
            )}
          </Group>
          {rows.map((row, index) => (
            <Group key={index} gap="xs" align="flex-start" wrap="wrap">
              <Select
                aria-label={`Filter ${index + 1} field`}
                placeholder="field"
                searchable
                data={filterFields(object)}
                value={row.field || null}
                onChange={(value) => updateRow(index, { field: value ?? '', operator: operatorsFor(object, value ?? '')[0] ?? '' })}
                w={220}
              />
              <Select
                aria-label={`Filter ${index + 1} operator`}
                data={operatorsFor(object, row.field)}
                value={row.operator || null}
                onChange={(value) => updateRow(index, { operator: value ?? '' })}
                w={170}
              />
              {!NO_VALUE.has(row.operator) && (
                <TextInput aria-label={`Filter ${index + 1} value`} placeholder={MANY_VALUES.has(row.operator) ? 'a, b, c' : 'value'} value={row.value} onChange={(e) => updateRow(index, { value: e.currentTarget.value })} w={200} />
              )}
              <ActionIcon variant="subtle" color="red" aria-label={`Remove filter ${index + 1}`} onClick={() => setRows(rows.filter((_, i) => i !== index))} mt={4}>
                ✕
              </ActionIcon>
            </Group>
          ))}
          <Group>
            <Button variant="light" size="xs" onClick={() => setRows([...rows, { field: '', operator: '', value: '' }])}>
              Add filter
            </Button>
          </Group>
          {filters && <Json value={filters} label="Filter preview" />}
          {errorFor('filters') && (
            <Text size="sm" c="red" role="alert">
              {errorFor('filters')}
            </Text>
          )}
        </Stack>
      </FormCard>
      )}
      <Card withBorder>
        {exportsList.isPending && <Loader aria-label="Loading exports" />}
        <ErrorAlert error={exportsList.error} />
        {exportsList.data && (
          <>
            <DataTable columns={['Export', 'Of', 'Status', 'Rows', 'Created', '']} minWidth={640}>
              {exportsList.data.items.map((record) => (
                <Table.Tr key={record.id} data-testid={`export-${record.id}`}>
                  <Table.Td>
                    <code>{record.id}</code>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{record.exported_object}</Text>
                    <Text size="xs" c="dimmed" maw={260} truncate="end" title={record.parameters.fields.join(', ')}>
                      {record.parameters.fields.join(', ')}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Status record={record} />
                  </Table.Td>
                  <Table.Td>{record.result?.row_count ?? '—'}</Table.Td>
                  <Table.Td>{dateTime(record.created_at)}</Table.Td>
                  <Table.Td>
                    {record.status === 'DONE' && record.result?.url && (
                      <Anchor href={record.result.url} download={`${record.exported_object}-${record.id}.csv`} aria-label={`Download ${record.id}`} size="sm">
                        Download CSV
                      </Anchor>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </DataTable>
            {exportsList.data.items.length === 0 && <Text c="dimmed">No exports yet.</Text>}
            <Pager page={page} limit={LIMIT} count={exportsList.data.items.length} total={exportsList.data.total} onPage={setPage} />
          </>
        )}
      </Card>
    </Stack>
  );
}
