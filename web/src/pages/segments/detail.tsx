import { Badge, Button, Card, Loader, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, withQuery } from '../../api/client.ts';
import { useCan } from '../../app/session.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { confirmThen } from '../../components/forms.tsx';
import { dateTime } from '../../components/format.ts';
import { Json } from '../../components/Json.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { Pager } from '../../components/Pager.tsx';
import { segmentSummary, type Segment } from './list.tsx';

// One segment: who belongs (static: the customers picked; auto-update: the filter in words and as
// stored), its members page by page, and deleting it (which the API refuses while a rule uses it).

const LIMIT = 20;

interface Member {
  id: string;
  name: string | null;
  email: string | null;
  source_id: string | null;
  created_at: string;
}

function Members({ segmentId }: { segmentId: string }) {
  const [page, setPage] = useState(1);
  const members = useQuery({
    queryKey: ['segment-members', segmentId, page],
    queryFn: () => api<{ customers: Member[]; total: number }>('GET', withQuery('/v1/customers', { segment_id: segmentId, limit: LIMIT, page })),
  });
  return (
    <Card withBorder data-testid="segment-members">
      <Stack gap="xs">
        <Title order={2} size="h5">
          Members
        </Title>
        {members.isPending && <Loader size="sm" aria-label="Loading members" />}
        <ErrorAlert error={members.error} title="The members could not be read" />
        {members.data &&
          (members.data.total === 0 ? (
            <Text size="sm" c="dimmed">
              No customer belongs to the segment yet.
            </Text>
          ) : (
            <>
              <DataTable columns={['Customer', 'E-mail', 'Source id', 'Created']} minWidth={560}>
                {members.data.customers.map((c) => (
                  <Table.Tr key={c.id} data-testid={`member-${c.id}`}>
                    <Table.Td>
                      <Link to={`/customers/${c.id}`}>{c.name ?? c.id}</Link>
                    </Table.Td>
                    <Table.Td>{c.email ?? '—'}</Table.Td>
                    <Table.Td>{c.source_id ?? '—'}</Table.Td>
                    <Table.Td>{dateTime(c.created_at)}</Table.Td>
                  </Table.Tr>
                ))}
              </DataTable>
              <Pager page={page} limit={LIMIT} count={members.data.customers.length} total={members.data.total} onPage={setPage} />
            </>
          ))}
      </Stack>
    </Card>
  );
}

export function SegmentPage() {
  const { segmentId = '' } = useParams();
  const can = useCan();
  const navigate = useNavigate();
  const client = useQueryClient();
  const segment = useQuery({ queryKey: ['segment', segmentId], queryFn: () => api<Segment>('GET', `/v1/segments/${encodeURIComponent(segmentId)}`) });
  if (segment.isPending) return <Loader aria-label="Loading segment" />;
  if (segment.isError) return <ErrorAlert error={segment.error} title="Segment not found" />;
  const s = segment.data;
  const remove = () =>
    confirmThen({
      title: `Delete ${s.name}?`,
      body: 'Its customers stay; only the segment and its memberships go. A segment a validation rule uses cannot be deleted.',
      confirm: 'Delete segment',
      done: `Segment ${s.name} deleted`,
      failed: 'The segment was not deleted',
      action: async () => {
        await api('DELETE', `/v1/segments/${encodeURIComponent(s.id)}`);
        await client.invalidateQueries({ queryKey: ['segments'] });
        void navigate('/segments');
      },
    });
  return (
    <>
      <PageHeader
        title={s.name}
        description={`Created ${dateTime(s.created_at)}`}
        actions={
          can('DELETE', '/v1/segments/:segmentId') && (
            <Button color="red" variant="light" onClick={remove}>
              Delete
            </Button>
          )
        }
      />
      <Stack>
        <Card withBorder>
          <Stack gap="xs">
            <Badge variant="light" color={s.type === 'static' ? 'gray' : 'blue'}>
              {s.type}
            </Badge>
            <Text size="sm" data-testid="segment-summary">
              {segmentSummary(s)}
            </Text>
            {s.initial_sync_status === 'IN_PROGRESS' && (
              <Text size="sm" c="dimmed">
                Existing customers are still being checked; members appear as they are.
              </Text>
            )}
            {s.filter && <Json value={s.filter} label="Stored filter" />}
          </Stack>
        </Card>
        <Members segmentId={s.id} />
      </Stack>
    </>
  );
}
