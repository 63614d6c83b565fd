import { Table } from '@mantine/core';
import { useId } from 'react';

/** Mantine's `xs` breakpoint: phones held upright. */
const PHONE = '(max-width: 36em)';

/** A CSS string literal of `text` (headings are plain words; quotes and backslashes are escaped anyway). */
const cssString = (text: string) => `"${text.replace(/[\\"]/g, (c) => `\\${c}`).replace(/\n/g, ' ')}"`;

/**
 * At phone widths every row becomes a card of its own: one line per cell with its column's heading in
 * front, so a row reads whole without scrolling sideways. The headings come from one rule per column
 * (`nth-child`), so pages go on writing plain rows and cells. The scope is a class of this table alone.
 */
function phoneRules(scope: string, columns: readonly string[]): string {
  const s = `.${scope}`;
  const headings = columns.map((column, i) => (column ? `${s} td:nth-child(${i + 1})::before{content:${cssString(column)}}` : '')).join('');
  return (
    `@media ${PHONE}{` +
    `${s}{--table-min-width:0px !important}` +
    `${s} thead{display:none}` +
    `${s} tbody tr{display:block;padding:var(--mantine-spacing-xs) 0;border-bottom:1px solid var(--table-border-color)}` +
    // A cell's content stays together at the right, however many parts it has; its heading takes the left.
    `${s} tbody td{display:flex;align-items:center;justify-content:flex-end;gap:var(--mantine-spacing-xs);border:0;padding:2px 0;min-height:28px;text-align:right;overflow-wrap:anywhere}` +
    `${s} tbody td::before{flex:none;margin-right:auto;color:var(--mantine-color-dimmed);font-size:var(--mantine-font-size-xs);text-align:left}` +
    `${s} tbody td:empty{display:none}` +
    headings +
    `}`
  );
}

/**
 * A list's table: column headings and the rows given. Wider than a phone it scrolls sideways inside its
 * card below `minWidth`, so the page itself never does; on a phone its rows stack (phoneRules).
 */
export function DataTable({ columns, minWidth, highlightOnHover = false, children }: { columns: readonly string[]; minWidth: number; highlightOnHover?: boolean; children: React.ReactNode }) {
  const scope = `data-table-${useId().replace(/[^a-zA-Z0-9_-]/g, '')}`;
  return (
    <>
      <style>{phoneRules(scope, columns)}</style>
      <Table.ScrollContainer minWidth={minWidth} className={scope}>
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
    </>
  );
}
