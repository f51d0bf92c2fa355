import { Table } from '@mantine/core';
import type { ReactNode } from 'react';

export interface SimpleColumn<T> {
  label: string;
  cell: (row: T) => ReactNode;
}

/** A small table of a part's rows, with a caption for screen readers. */
export function SimpleTable<T>({
  rows,
  columns,
  caption,
  testId,
}: {
  rows: readonly T[];
  columns: SimpleColumn<T>[];
  caption: string;
  testId?: string;
}) {
  if (rows.length === 0) return <p>None.</p>;
  return (
    <Table.ScrollContainer minWidth={500}>
      <Table striped withTableBorder data-testid={testId}>
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
          {rows.map((row, i) => (
            <Table.Tr key={i}>
              {columns.map((c) => (
                <Table.Td key={c.label}>{c.cell(row)}</Table.Td>
              ))}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
