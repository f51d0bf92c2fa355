import { Alert, Badge, Group, Stack, Table, Text, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import { api, ok } from '../../api/client';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { Link } from '../../ui/Link';
import { when } from '../../ui/format';
import type { ScreenProps } from '../registry';
import { KIND_LABELS, STATE_COLORS, STATE_LABELS, type Workflow } from './labels';
import { SagaLog } from './SagaLog';

/** One registration run: who, what state, the error that stopped it, and its saga log step by step. */
export function WorkflowDetail({ params }: ScreenProps) {
  const [workflow, setWorkflow] = useState<Workflow>();
  const [error, setError] = useState<unknown>();

  useEffect(() => {
    setWorkflow(undefined);
    ok(api.GET('/api/backoffice/workflows/{id}', { params: { path: { id: params.id } } })).then(setWorkflow, setError);
  }, [params.id]);

  if (error) return <ErrorNotice error={error} />;
  if (!workflow) return <Text aria-live="polite">Loading…</Text>;
  const facts: Array<[string, string]> = [
    ['Kind', KIND_LABELS[workflow.kind]],
    ['Phone', workflow.phone],
    ['Person', workflow.subject ? `${workflow.subject.firstName} ${workflow.subject.lastName} (${workflow.subject.role})` : '—'],
    ['User id', workflow.subject?.userId ?? '—'],
    ['Wallet id', workflow.subject?.walletId ?? '—'],
    ['Requested by', workflow.requestedBy ?? '—'],
    ['Correlation id', workflow.correlationId ?? '—'],
    ['Started', when(workflow.startedAt)],
    ['Last change', when(workflow.updatedAt)],
    ['Run id', workflow.id],
  ];
  return (
    <Stack>
      <Group>
        <Link to="/workflows">← All workflows</Link>
        <Badge size="lg" color={STATE_COLORS[workflow.state]} data-testid="workflow-state">
          {STATE_LABELS[workflow.state]}
        </Badge>
      </Group>
      {workflow.error && (
        <Alert color="red" title="What stopped it" data-testid="workflow-error">
          <Text span ff="monospace" fw={700}>
            {workflow.error.code}
          </Text>{' '}
          (HTTP {workflow.error.status}): {workflow.error.message}
        </Alert>
      )}
      <Table withTableBorder variant="vertical" maw={720} data-testid="workflow-facts">
        <Table.Tbody>
          {facts.map(([label, value]) => (
            <Table.Tr key={label}>
              <Table.Th scope="row" w={180}>
                {label}
              </Table.Th>
              <Table.Td>{value}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <Title order={2} size="h4">
        Saga log
      </Title>
      <SagaLog steps={workflow.steps} caption="Each step as it started, ended, or was undone, in order" />
    </Stack>
  );
}
