import { Table } from '@mantine/core';
import type { ReactNode } from 'react';

/** A column of records shown as text; the same list feeds the CSV export (ui/csv.ts). */
export interface TextColumn<T> {
  label: string;
  text: (row: T) => string;
}

/**
 * Records with an id as a striped table, one column per entry of `columns`; `cell` lets a screen
 * draw a column differently from its CSV text (a coloured status, say).
 */
export function RecordsTable<T extends { id: string }>({
  rows,
  columns,
  caption,
  testId,
  cell = (column, row) => column.text(row),
}: {
  rows: readonly T[];
  columns: readonly TextColumn<T>[];
  caption: string;
  testId?: string;
  cell?: (column: TextColumn<T>, row: T) => ReactNode;
}) {
  return (
    <Table striped data-testid={testId}>
      <Table.Caption>{caption}</Table.Caption>
      <Table.Thead>
        <Table.Tr>
          {columns.map((c) => (
            <Table.Th key={c.label} scope="col">
              {c.label}
            </Table.Th>
          ))}
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {rows.map((row) => (
          <Table.Tr key={row.id}>
            {columns.map((c) => (
              <Table.Td key={c.label}>{cell(c, row)}</Table.Td>
            ))}
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
