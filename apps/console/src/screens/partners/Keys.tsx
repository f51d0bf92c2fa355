import { Badge, Button, Code, Group, NumberInput, Select, Stack, Table, Text, Title } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { api, ok } from '../../api/client';
import type { components } from '../../api/schema';
import { can, useSession } from '../../session/session';
import { when } from '../../ui/format';
import { type ApiKey, CELL_BADGE, KEY_STATUS_COLORS, type Mode, MODES } from './labels';
import { CollectOnce } from './CollectOnce';
import { RequestForm } from './RequestForm';
import { SubmittedRequest } from './SubmittedRequest';

type Approval = components['schemas']['ApprovalRequestView'];
type Issued = components['schemas']['IssuedApiKeyDto'];
type Intent = { kind: 'new' } | { kind: 'replace'; key: ApiKey } | { kind: 'revoke'; key: ApiKey };

/**
 * The integration's API keys (hints only). With partners.manage: ask for a new key, a replacement
 * (rotation, the old key working for an overlap) or a revocation — each a request of the
 * maker-checker engine that another person approves — and collect an approved new key, once.
 */
export function Keys(props: { integrationId: string; keys: ApiKey[]; onChanged: () => void }) {
  const session = useSession();
  const mayManage = can(session, 'partners.manage');
  const [intent, setIntent] = useState<Intent>();
  const [mode, setMode] = useState<Mode>('live');
  const [reason, setReason] = useState('');
  const [overlapHours, setOverlapHours] = useState<number | string>(24);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [submitted, setSubmitted] = useState<Approval>();

  function open(next: Intent) {
    setIntent(next);
    setReason('');
    setError(undefined);
    if (next.kind !== 'new') setMode(next.key.mode);
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!intent) return;
    setBusy(true);
    setError(undefined);
    try {
      const integrationId = props.integrationId;
      let request: Approval;
      if (intent.kind === 'revoke')
        request = await ok(
          api.POST('/api/backoffice/partners/integrations/{integrationId}/keys/{keyId}/revoke', {
            params: { path: { integrationId, keyId: intent.key.id } },
            body: { reason: reason.trim() },
          }),
        );
      else
        request = await ok(
          api.POST('/api/backoffice/partners/integrations/{integrationId}/keys', {
            params: { path: { integrationId } },
            body: {
              mode,
              reason: reason.trim(),
              ...(intent.kind === 'replace'
                ? { replacesKeyId: intent.key.id, overlapSeconds: Math.round(Number(overlapHours || 0) * 3600) }
                : {}),
            },
          }),
        );
      setSubmitted(request);
      setIntent(undefined);
      props.onChanged();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }

  const title =
    intent?.kind === 'revoke'
      ? `Revoke key ${intent.key.hint}`
      : intent?.kind === 'replace'
        ? `Replace key ${intent.key.hint}`
        : 'Ask for a new key';

  return (
    <Stack component="section" aria-labelledby="keys-title" gap="xs">
      <Title order={2} size="h4" id="keys-title">
        API keys
      </Title>
      <SubmittedRequest request={submitted} />
      <Table striped withTableBorder data-testid="keys-table">
        <Table.Caption>Keys of this integration (hints only: the platform never shows a key twice)</Table.Caption>
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">Mode</Table.Th>
            <Table.Th scope="col">Hint</Table.Th>
            <Table.Th scope="col">Status</Table.Th>
            <Table.Th scope="col">Created</Table.Th>
            <Table.Th scope="col">Expires</Table.Th>
            <Table.Th scope="col">Revoked</Table.Th>
            {mayManage && <Table.Th scope="col">Actions</Table.Th>}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {props.keys.map((k) => (
            <Table.Tr key={k.id} data-testid={`key-${k.id}`}>
              <Table.Td>{k.mode}</Table.Td>
              <Table.Td>
                <Code>{k.hint}</Code>
              </Table.Td>
              <Table.Td>
                <Badge styles={CELL_BADGE} color={KEY_STATUS_COLORS[k.status]}>
                  {k.status}
                </Badge>
              </Table.Td>
              <Table.Td>{when(k.createdAt)}</Table.Td>
              <Table.Td>{when(k.expiresAt) || '—'}</Table.Td>
              <Table.Td>{when(k.revokedAt) || '—'}</Table.Td>
              {mayManage && (
                <Table.Td>
                  {k.status === 'active' || k.status === 'expiring' ? (
                    <Group gap="xs">
                      <Button
                        size="xs"
                        variant="default"
                        onClick={() => open({ kind: 'replace', key: k })}
                        aria-label={`Replace key ${k.hint}`}
                      >
                        Replace…
                      </Button>
                      <Button
                        size="xs"
                        variant="outline"
                        color="red"
                        onClick={() => open({ kind: 'revoke', key: k })}
                        aria-label={`Revoke key ${k.hint}`}
                      >
                        Revoke…
                      </Button>
                    </Group>
                  ) : (
                    '—'
                  )}
                </Table.Td>
              )}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {props.keys.length === 0 && <Text c="dimmed">No key issued yet.</Text>}
      {mayManage && !intent && (
        <Group>
          <Button variant="default" size="xs" onClick={() => open({ kind: 'new' })}>
            Ask for a new key…
          </Button>
        </Group>
      )}
      {mayManage && intent && (
        <RequestForm
          label={title}
          heading={title}
          note="This creates a request: a compliance officer or another administrator must approve it."
          error={error}
          reason={reason}
          onReason={setReason}
          reasonDescription="At least 3 characters; recorded with the request"
          busy={busy}
          submitColor={intent.kind === 'revoke' ? 'red' : undefined}
          onSubmit={submit}
          onCancel={() => setIntent(undefined)}
        >
          {intent.kind === 'new' && (
            <Select label="Mode" allowDeselect={false} data={MODES} value={mode} onChange={(value) => value && setMode(value as Mode)} />
          )}
          {intent.kind === 'replace' && (
            <NumberInput
              label="Overlap (hours)"
              description="How long the replaced key keeps working (0 to 720)"
              min={0}
              max={720}
              value={overlapHours}
              onChange={setOverlapHours}
            />
          )}
        </RequestForm>
      )}
      {mayManage && <CollectKey />}
    </Stack>
  );
}

/** An approved key request's secret, shown once to the staff member who asked for it. */
function CollectKey() {
  return (
    <CollectOnce<Issued>
      label="Collect an approved key"
      idLabel="Approved key request id"
      idDescription="Only the person who asked can collect the key, once, within 24 hours"
      button="Collect key"
      errorTitle="The key could not be collected"
      resultTitle="The new key — copy it now, it is not shown again"
      resultTestId="collected-key"
      describe={(issued) => (
        <Text size="sm">
          {issued.mode} key <Code>{issued.hint}</Code>:
        </Text>
      )}
      secret={(issued) => issued.key}
      collect={(approvalId) =>
        ok(api.POST('/api/backoffice/partners/key-requests/{approvalId}/collect', { params: { path: { approvalId } } }))
      }
    />
  );
}
