import { Badge, Button, Group, Select, Stack, Table, Text, Title } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { api, ok } from '../../api/client';
import type { components } from '../../api/schema';
import { can, useSession } from '../../session/session';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { Link } from '../../ui/Link';
import { when } from '../../ui/format';
import { useLoad } from '../../ui/useLoad';
import { STATUS_COLORS, STATUS_LABELS } from '../approvals/labels';
import { CELL_BADGE, type Mode, MODES } from './labels';
import { CollectOnce } from './CollectOnce';
import { RequestForm } from './RequestForm';
import { SubmittedRequest } from './SubmittedRequest';

type Approval = components['schemas']['ApprovalRequestView'];
type Rotated = components['schemas']['RotatedWebhookSecretDto'];

/**
 * For administrators (partners.manage): a new webhook signing secret is a maker-checker request
 * (WEBHOOK_SECRET_ROTATE), since whoever holds the secret can sign webhooks the partner trusts. A
 * compliance officer or another administrator approves; the new secret then waits, encrypted, for
 * the person who asked, who collects it once here (the previous secret keeps signing for a while).
 */
export function SecretRotation(props: { integrationId: string; active: boolean }) {
  const session = useSession();
  const [mode, setMode] = useState<Mode>('live');
  const [reason, setReason] = useState('');
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [submitted, setSubmitted] = useState<Approval>();
  const [collectId, setCollectId] = useState('');
  const mayList = can(session, 'approvals.read');
  const requests = useLoad(
    async () =>
      mayList
        ? (
            await ok(
              api.GET('/api/backoffice/approvals', {
                params: {
                  query: { action: 'WEBHOOK_SECRET_ROTATE', targetType: 'integration', targetId: props.integrationId, limit: 10 },
                },
              }),
            )
          ).items
        : [],
    [props.integrationId, mayList],
  );

  async function ask(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const request = await ok(
        api.POST('/api/backoffice/partners/integrations/{integrationId}/webhook-secret/rotate', {
          params: { path: { integrationId: props.integrationId } },
          body: { mode, reason: reason.trim() },
        }),
      );
      setSubmitted(request);
      setAsking(false);
      setReason('');
      // carried out at once (one-person configuration): the secret is ready to collect
      if (request.status === 'EXECUTED') setCollectId(request.id);
      await requests.reload();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }

  const mine = (r: Approval) => r.maker.userId === session?.me.userId;
  return (
    <Stack component="section" aria-labelledby="secret-rotation-title" gap="xs">
      <Title order={3} size="h5" id="secret-rotation-title">
        Signing secret rotation
      </Title>
      <SubmittedRequest request={submitted} />
      {submitted?.status === 'PENDING' && (
        <Text size="sm" data-testid="secret-rotation-next">
          Once it is approved, the new secret waits for you alone: collect it below with the request id, once, within 24 hours. Until then
          the current secret keeps signing.
        </Text>
      )}
      {props.active && !asking && (
        <Group>
          <Button variant="default" size="xs" onClick={() => (setAsking(true), setError(undefined))}>
            Ask for a new signing secret…
          </Button>
        </Group>
      )}
      {asking && (
        <RequestForm
          label="Ask for a new webhook signing secret"
          note="This creates a request: a compliance officer or another administrator must approve it before the secret changes."
          error={error}
          reason={reason}
          onReason={setReason}
          reasonDescription="At least 3 characters; shown to the checker"
          busy={busy}
          onSubmit={ask}
          onCancel={() => setAsking(false)}
        >
          <Select label="Endpoint" allowDeselect={false} data={MODES} value={mode} onChange={(value) => value && setMode(value as Mode)} />
        </RequestForm>
      )}
      {mayList && <ErrorNotice error={requests.error} title="The rotation requests could not be read" />}
      {mayList && (requests.data?.length ?? 0) > 0 && (
        <Table striped withTableBorder data-testid="secret-rotation-requests">
          <Table.Caption>The latest signing secret rotations asked for this integration</Table.Caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Asked</Table.Th>
              <Table.Th scope="col">Endpoint</Table.Th>
              <Table.Th scope="col">Status</Table.Th>
              <Table.Th scope="col">Request</Table.Th>
              <Table.Th scope="col">Secret</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {requests.data!.map((r) => (
              <Table.Tr key={r.id}>
                <Table.Td>{when(r.createdAt)}</Table.Td>
                <Table.Td>{String(r.payload.mode ?? '')}</Table.Td>
                <Table.Td>
                  <Badge styles={CELL_BADGE} color={STATUS_COLORS[r.status] ?? 'gray'}>
                    {STATUS_LABELS[r.status] ?? r.status}
                  </Badge>
                </Table.Td>
                <Table.Td>
                  <Link to={`/approvals/${r.id}`}>Open</Link>
                </Table.Td>
                <Table.Td>
                  {r.status === 'EXECUTED' && mine(r) ? (
                    <Button
                      size="xs"
                      variant="default"
                      onClick={() => setCollectId(r.id)}
                      aria-label={`Collect the secret of request ${r.id}`}
                    >
                      Collect…
                    </Button>
                  ) : r.status === 'EXECUTED' ? (
                    'for the person who asked'
                  ) : (
                    '—'
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      <CollectSecret approvalId={collectId} onApprovalId={setCollectId} />
    </Stack>
  );
}

/** An approved rotation's new secret, shown once to the staff member who asked for it. */
function CollectSecret({ approvalId, onApprovalId }: { approvalId: string; onApprovalId: (id: string) => void }) {
  return (
    <CollectOnce<Rotated>
      label="Collect an approved signing secret"
      idLabel="Approved rotation request id"
      idDescription="Only the person who asked can collect the secret, once, within 24 hours"
      button="Collect secret"
      errorTitle="The secret could not be collected"
      resultTitle="New signing secret — copy it now, it is not shown again"
      resultTestId="collected-secret"
      describe={(secret) => (
        <Text size="sm">
          {secret.mode} webhooks:{' '}
          {secret.previousSecretExpiresAt
            ? `the previous secret also signs until ${when(secret.previousSecretExpiresAt)}.`
            : 'the previous secret no longer signs.'}
        </Text>
      )}
      secret={(secret) => secret.secret}
      collect={(id) =>
        ok(api.POST('/api/backoffice/partners/secret-requests/{approvalId}/collect', { params: { path: { approvalId: id } } }))
      }
      hideOnRetry
      approvalId={approvalId}
      onApprovalId={onApprovalId}
    />
  );
}
