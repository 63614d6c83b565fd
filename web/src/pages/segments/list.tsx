import { Badge, Button, Card, Loader, Table, Text } from '@mantine/core';
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
import { describeFilter, fromFilter } from './filter.ts';

// Customer segments, newest first: static ones list their customers, auto-update ones a filter that
// decides membership as customers change.

export interface Segment {
  id: string;
  name: string;
  type: 'static' | 'auto-update';
  filter: Record<string, unknown> | null;
  initial_sync_status: 'IN_PROGRESS' | 'DONE';
  created_at: string;
  updated_at: string | null;
}

const LIMIT = 20;

export function segmentSummary(segment: Segment): string {
  if (segment.type === 'static') return 'Customers picked one by one';
  const model = fromFilter(segment.filter);
  return model ? describeFilter(model) : 'A filter the console cannot show in words (see it as stored)';
}

export function SegmentsPage() {
  const can = useCan();
  const [page, setPage] = useState(1);
  const segments = useQuery({
    queryKey: ['segments', page],
    queryFn: () => api<{ data: Segment[]; total: number }>('GET', withQuery('/v1/segments', { limit: LIMIT, page })),
  });
  return (
    <>
      <PageHeader
        title="Segments"
        description="Groups of customers, for validation rules, earning rules and distributions."
        actions={
          can('POST', '/v1/segments') && (
            <Button component={Link} to="/segments/new">
              New segment
            </Button>
          )
        }
      />
      {segments.isPending && <Loader aria-label="Loading segments" />}
      <ErrorAlert error={segments.error} title="The segments could not be read" />
      {segments.data && (
        <Card withBorder>
          {segments.data.total === 0 ? (
            <Text c="dimmed">No segments yet.</Text>
          ) : (
            <DataTable columns={['Name', 'Type', 'Members', 'Created']} minWidth={640}>
              {segments.data.data.map((s) => (
                <Table.Tr key={s.id} data-testid={`segment-${s.id}`}>
                  <Table.Td>
                    <Link to={`/segments/${s.id}`}>{s.name}</Link>
                  </Table.Td>
                  <Table.Td>
                    <Badge variant="light" color={s.type === 'static' ? 'gray' : 'blue'}>
                      {s.type}
                    </Badge>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" lineClamp={2}>
                      {segmentSummary(s)}
                    </Text>
                  </Table.Td>
                  <Table.Td>{dateTime(s.created_at)}</Table.Td>
                </Table.Tr>
              ))}
            </DataTable>
          )}
          <Pager page={page} limit={LIMIT} count={segments.data.data.length} total={segments.data.total} onPage={setPage} />
        </Card>
      )}
    </>
  );
}
