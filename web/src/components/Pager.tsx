import { Button, Group, Text } from '@mantine/core';
import { count as formatCount } from './format.ts';

/** Pages through an API list (`page` and `limit` query members); never loads a whole table. */
export function Pager({ page, limit, count, total, hasMore, onPage }: { page: number; limit: number; count: number; total: number | null; hasMore?: boolean; onPage: (page: number) => void }) {
  const last = total !== null ? Math.max(1, Math.ceil(total / limit)) : null;
  const more = last !== null ? page < last : (hasMore ?? count === limit);
  return (
    <Group justify="space-between" mt="sm">
      <Text size="sm" c="dimmed">
        {total !== null ? `${formatCount(total)} in all` : `${count} shown`}
        {last !== null && ` · page ${page} of ${last}`}
      </Text>
      <Group gap="xs">
        <Button variant="default" size="xs" disabled={page <= 1} onClick={() => onPage(page - 1)}>
          Previous
        </Button>
        <Button variant="default" size="xs" disabled={!more} onClick={() => onPage(page + 1)}>
          Next
        </Button>
      </Group>
    </Group>
  );
}
