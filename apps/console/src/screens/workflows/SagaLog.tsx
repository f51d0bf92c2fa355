import { Badge, Table } from '@mantine/core';
import { when } from '../../ui/format';
import { CELL_BADGE, STEP_COLORS, type Step } from './labels';

/** A workflow's saga log in order: each step's start, outcome, compensation and error. */
export function SagaLog({ steps, caption }: { steps: Step[]; caption: string }) {
  return (
    <Table striped withTableBorder data-testid="saga-log">
      <Table.Caption>{caption}</Table.Caption>
      <Table.Thead>
        <Table.Tr>
          <Table.Th scope="col">When</Table.Th>
          <Table.Th scope="col">Step</Table.Th>
          <Table.Th scope="col">Event</Table.Th>
          <Table.Th scope="col">Error</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {steps.map((s, i) => (
          <Table.Tr key={i}>
            <Table.Td>{when(s.at)}</Table.Td>
            <Table.Td ff="monospace">{s.step}</Table.Td>
            <Table.Td>
              <Badge styles={CELL_BADGE} color={STEP_COLORS[s.event]} tt="none">
                {s.event}
              </Badge>
            </Table.Td>
            <Table.Td>{s.error ? `${s.error.code} (${s.error.status}): ${s.error.message}` : ''}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
