import { Alert, Badge, Button, Group, Stack, Table, Text, Textarea, Title } from '@mantine/core';
import { useCallback, useEffect, useState } from 'react';
import { api, ok } from '../../api/client';
import type { components } from '../../api/schema';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { JsonBlock } from '../../ui/JsonBlock';
import { ValueTable, recordArrays } from '../../ui/ValueTable';
import { money, when } from '../../ui/format';
import type { ScreenProps } from '../registry';
import { actionLabel, cannotDecide, STATUS_COLORS, STATUS_LABELS } from './labels';

type Detail = components['schemas']['ApprovalDetailView'];

/**
 * One request: what the maker asked, why, and what approving would do now (the preview the engine
 * computes: a correction's postings, a configuration's changes). The approve and reject controls
 * exist only when the platform says this operator may decide (never on one's own request).
 */
export function ApprovalDetail({ params }: ScreenProps) {
  const [detail, setDetail] = useState<Detail>();
  const [error, setError] = useState<unknown>();
  const [decisionError, setDecisionError] = useState<unknown>();
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);

  const load = useCallback(async () => {
    try {
      setDetail(await ok(api.GET('/api/backoffice/approvals/{id}', { params: { path: { id: params.id } } })));
    } catch (failure) {
      setError(failure);
    }
  }, [params.id]);
  useEffect(() => void load(), [load]);

  async function decide(decision: 'approve' | 'reject') {
    setBusy(true);
    setDecisionError(undefined);
    try {
      const path = { path: { id: params.id } };
      if (decision === 'approve')
        await ok(api.POST('/api/backoffice/approvals/{id}/approve', { params: path, body: { reason: reason.trim() || undefined } }));
      else await ok(api.POST('/api/backoffice/approvals/{id}/reject', { params: path, body: { reason: reason.trim() } }));
      setReason('');
      await load();
    } catch (failure) {
      setDecisionError(failure);
      await load();
    } finally {
      setBusy(false);
    }
  }

  if (error) return <ErrorNotice error={error} />;
  if (!detail) return <Text aria-live="polite">Loading…</Text>;
  const { request, preview, viewer } = detail;
  const facts: Array<[string, string]> = [
    ['Action', actionLabel(request.action)],
    ['Summary', request.summary],
    ['Target', `${request.target.type} ${request.target.id}`],
    ['Amount', request.amount ? money(request.amount.value, request.amount.currency) : '—'],
    ['Maker', `${request.maker.role} ${request.maker.userId}`],
    ['Maker’s reason', request.reason],
    ['Submitted', when(request.createdAt)],
    ['Expires', when(request.expiresAt)],
    ['Four eyes', request.fourEyes ? 'yes' : 'no (one person may carry it out)'],
    ['Checker', request.checker ? `${request.checker.role} ${request.checker.userId}` : '—'],
    ['Checker’s reason', request.decisionReason ?? '—'],
    ['Decided', when(request.decidedAt) || '—'],
  ];

  return (
    <Stack>
      <Group>
        <Badge size="lg" color={STATUS_COLORS[request.status]} data-testid="approval-status">
          {STATUS_LABELS[request.status]}
        </Badge>
        <Text c="dimmed" size="sm">
          request {request.id}
        </Text>
      </Group>
      {request.failure && (
        <Alert color="red" title="Carrying it out failed" data-testid="approval-failure">
          <Text ff="monospace" span fw={700}>
            {request.failure.code}
          </Text>
          : {request.failure.message}
        </Alert>
      )}
      <Table withTableBorder variant="vertical" data-testid="approval-facts">
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
        What approving will do
      </Title>
      {preview ? (
        <>
          {recordArrays(preview).map(([key, rows]) => (
            <ValueTable key={key} rows={rows} caption={key} />
          ))}
          <JsonBlock value={preview} label="Preview of the request's effect" />
        </>
      ) : (
        <Text c="dimmed">No preview for this action.</Text>
      )}
      <Title order={2} size="h4">
        Exact payload
      </Title>
      <JsonBlock value={request.payload} label="The payload that will be carried out" />
      {request.result && (
        <>
          <Title order={2} size="h4">
            Result
          </Title>
          <JsonBlock value={request.result} label="What carrying it out answered" />
        </>
      )}

      <Title order={2} size="h4">
        Decision
      </Title>
      <ErrorNotice error={decisionError} title="The decision was refused" />
      {viewer.canDecide ? (
        <Stack maw={640} data-testid="decision-form">
          <Textarea
            label="Reason for your decision"
            description="Required to reject; recorded with your decision"
            value={reason}
            onChange={(e) => setReason(e.currentTarget.value)}
            autosize
            minRows={2}
          />
          <Group>
            <Button color="green" loading={busy} onClick={() => void decide('approve')}>
              Approve
            </Button>
            <Button color="red" variant="outline" loading={busy} disabled={!reason.trim()} onClick={() => void decide('reject')}>
              Reject
            </Button>
          </Group>
        </Stack>
      ) : (
        <Text data-testid="cannot-decide">{viewer.reasonIfNot ? cannotDecide(viewer.reasonIfNot) : 'You cannot decide this request.'}</Text>
      )}
    </Stack>
  );
}
