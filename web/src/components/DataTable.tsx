import { Table } from '@mantine/core';

/**
 * A list's table: column headings and the rows given; at narrower widths than `minWidth` it scrolls
 * sideways inside its card, so the page itself never does (phone widths).
 */
export function DataTable({ columns, minWidth, highlightOnHover = false, children }: { columns: readonly string[]; minWidth: number; highlightOnHover?: boolean; children: React.ReactNode }) {
  return (
    <Table.ScrollContainer minWidth={minWidth}>
      <Table highlightOnHover={highlightOnHover}>
        <Table.Thead>
          <Table.Tr>
            {columns.map((column, i) => (
              <Table.Th key={i}>{column}</Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>{children}</Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
