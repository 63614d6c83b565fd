import { Badge, Button, Card, Group, Loader, Table, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api } from '../../api/client.ts';
import { useCan, useSession } from '../../app/session.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { dateTime } from '../../components/format.ts';
import { PageHeader } from '../../components/PageHeader.tsx';

// The project's metadata schemas (management API): one per related object, each defining the metadata
// properties its objects may carry.

export interface PropertyDefinition {
  type: string;
  optional: boolean;
  array: boolean;
  object_type: string | null;
  deleted?: boolean;
  min_length?: number;
  max_length?: number;
  exact_length?: number;
  eq?: Array<string | number>;
  ne?: number[];
  lt?: number;
  lte?: number;
  gt?: number;
  gte?: number;
}

export interface MetadataSchema {
  id: string;
  related_object: string;
  properties: Record<string, PropertyDefinition>;
  allow_defined_only: boolean | null;
  created_at: string;
  updated_at: string | null;
}

export const SCHEMAS_ROUTE = '/management/v1/projects/:projectId/metadata-schemas';

export function useSchemasBase(): string {
  const session = useSession();
  return `/management/v1/projects/${session.data?.project.id ?? ''}/metadata-schemas`;
}

export function MetadataSchemasPage() {
  const can = useCan();
  const base = useSchemasBase();
  const schemas = useQuery({ queryKey: ['metadata-schemas'], queryFn: () => api<{ data: MetadataSchema[]; total: number }>('GET', base) });
  return (
    <>
      <PageHeader
        title="Metadata schemas"
        description="The metadata properties customers, products, orders, campaigns and other objects may carry, with their types."
        actions={
          can('POST', SCHEMAS_ROUTE) && (
            <Button component={Link} to="/metadata-schemas/new">
              New schema
            </Button>
          )
        }
      />
      {schemas.isPending && <Loader aria-label="Loading schemas" />}
      <ErrorAlert error={schemas.error} title="The schemas could not be read" />
      {schemas.data && (
        <Card withBorder>
          {schemas.data.total === 0 ? (
            <Text c="dimmed">No metadata schemas yet: metadata is free-form everywhere.</Text>
          ) : (
            <DataTable columns={['Object', 'Properties', 'Other properties', 'Changed']} minWidth={640}>
              {schemas.data.data.map((s) => (
                <Table.Tr key={s.id} data-testid={`schema-${s.related_object}`}>
                  <Table.Td>
                    <Link to={`/metadata-schemas/${s.id}`}>{s.related_object}</Link>
                  </Table.Td>
                  <Table.Td>
                    <Group gap={4}>
                      {Object.entries(s.properties)
                        .filter(([, d]) => !d.deleted)
                        .map(([name, d]) => (
                          <Badge key={name} variant="light" color={d.optional ? 'gray' : 'blue'} tt="none">
                            {name}: {d.type}
                            {d.array ? '[]' : ''}
                          </Badge>
                        ))}
                    </Group>
                  </Table.Td>
                  <Table.Td>{s.allow_defined_only ? 'refused' : 'allowed'}</Table.Td>
                  <Table.Td>{dateTime(s.updated_at ?? s.created_at)}</Table.Td>
                </Table.Tr>
              ))}
            </DataTable>
          )}
        </Card>
      )}
    </>
  );
}
