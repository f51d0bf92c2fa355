import { Table } from '@mantine/core';
import type { ReactNode } from 'react';

/** One line of a facts table: its label, its value and, when a test reads the value, the cell's test id. */
export type Fact = readonly [label: string, value: ReactNode, testId?: string];

/** Labelled values of one record (a case's subject, a run's balances) as a two-column table, labels as row headings. */
export function FactsTable({ facts, testId }: { facts: readonly Fact[]; testId?: string }) {
  return (
    <Table withTableBorder variant="vertical" data-testid={testId}>
      <Table.Tbody>
        {facts.map(([label, value, valueTestId]) => (
          <Table.Tr key={label}>
            <Table.Th scope="row">{label}</Table.Th>
            <Table.Td data-testid={valueTestId}>{value}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
