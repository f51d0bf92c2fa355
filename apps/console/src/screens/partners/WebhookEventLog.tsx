import { Alert, Badge, Button, Group, Stack, Table, Text, Title } from '@mantine/core';
import { useCallback, useEffect, useState } from 'react';
import { api, ok } from '../../api/client';
import type { components } from '../../api/schema';
import { can, useSession } from '../../session/session';
import { toCsv, downloadCsv } from '../../ui/csv';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { Link } from '../../ui/Link';
import { when } from '../../ui/format';
import type { ScreenProps } from '../registry';
import { type Attempt, EVENT_STATUS_COLORS, EVENT_STATUS_LABELS } from './labels';

type Log = components['schemas']['WebhookDeliveryLogDto'];

const COLUMNS: Array<{ label: string; text: (a: Attempt) => string }> = [
  { label: '#', text: (a) => String(a.attemptNumber) },
  { label: 'Time', text: (a) => when(a.attemptedAt) },
  { label: 'URL', text: (a) => a.url },
  { label: 'HTTP status', text: (a) => (a.statusCode === null ? 'no answer' : String(a.statusCode)) },
  { label: 'Latency (ms)', text: (a) => String(a.latencyMs) },
  { label: 'Outcome', text: (a) => a.outcome },
  { label: 'Error', text: (a) => (a.errorCode ? `${a.errorCode}${a.error ? `: ${a.error}` : ''}` : (a.error ?? '')) },
  { label: 'Response excerpt', text: (a) => a.responseExcerpt ?? '' },
];

/**
 * One webhook event's delivery log: its state and every attempt. "Resend" (webhooks.manage) starts
 * a new delivery run; the idempotency key is kept until it succeeds, so a retry after a lost answer
 * (or a double click) never sends twice.
 */
export function WebhookEventLog({ params }: ScreenProps) {
  const session = useSession();
  const [log, setLog] = useState<Log>();
  const [error, setError] = useState<unknown>();
  const [resendKey, setResendKey] = useState(() => crypto.randomUUID());
  const [busy, setBusy] = useState(false);
  const [resendError, setResendError] = useState<unknown>();
  const [resent, setResent] = useState<string>();

  const load = useCallback(async () => {
    try {
      setLog(await ok(api.GET('/api/backoffice/webhooks/events/{eventId}', { params: { path: { eventId: params.eventId } } })));
      setError(undefined);
    } catch (failure) {
      setError(failure);
    }
  }, [params.eventId]);
  useEffect(() => void load(), [load]);

  async function resend() {
    setBusy(true);
    setResendError(undefined);
    setResent(undefined);
    try {
      const result = await ok(
        api.POST('/api/backoffice/webhooks/events/{eventId}/resend', {
          params: { path: { eventId: params.eventId } },
          body: { idempotencyKey: resendKey },
        }),
      );
      setResent(result.repeated ? 'This resend was already queued; nothing more was sent.' : 'Queued: a new delivery run is on its way.');
      setResendKey(crypto.randomUUID());
      await load();
    } catch (failure) {
      setResendError(failure);
    } finally {
      setBusy(false);
    }
  }

  if (error && !log) return <ErrorNotice error={error} />;
  if (!log) return <Text aria-live="polite">Loading…</Text>;
  const { event, attempts } = log;

  return (
    <Stack>
      <Group>
        <Link to={`/partners/${params.id}`}>← Integration</Link>
        <Badge size="lg" color={EVENT_STATUS_COLORS[event.status]} data-testid="event-status">
          {EVENT_STATUS_LABELS[event.status]}
        </Badge>
        <Text>
          {event.event} ({event.mode}) · received {when(event.receivedAt)} · {event.attemptCount} attempt
          {event.attemptCount === 1 ? '' : 's'} · resent {event.resendCount} time{event.resendCount === 1 ? '' : 's'}
        </Text>
      </Group>
      <Text size="sm" c="dimmed">
        event {event.id}
        {event.deliveredAt ? ` · delivered ${when(event.deliveredAt)}` : ''}
        {event.failedAt ? ` · failed ${when(event.failedAt)}` : ''}
      </Text>
      <ErrorNotice error={error} />
      {can(session, 'webhooks.manage') && (
        <Group>
          <Button onClick={() => void resend()} loading={busy}>
            Resend
          </Button>
          <Button variant="default" onClick={() => void load()}>
            Refresh
          </Button>
        </Group>
      )}
      <ErrorNotice error={resendError} title="The resend was refused" />
      {resent && (
        <Alert color="green" role="status" data-testid="resend-result">
          {resent}
        </Alert>
      )}
      <Title order={2} size="h4">
        Delivery attempts
      </Title>
      <Table.ScrollContainer minWidth={900}>
        <Table striped withTableBorder data-testid="attempts-table">
          <Table.Caption>Every delivery attempt, in order</Table.Caption>
          <Table.Thead>
            <Table.Tr>
              {COLUMNS.map((c) => (
                <Table.Th key={c.label} scope="col">
                  {c.label}
                </Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {attempts.map((a) => (
              <Table.Tr key={a.attemptNumber}>
                {COLUMNS.map((c) => (
                  <Table.Td
                    key={c.label}
                    style={c.label === 'URL' || c.label === 'Response excerpt' ? { wordBreak: 'break-all' } : undefined}
                  >
                    {c.text(a)}
                  </Table.Td>
                ))}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {attempts.length === 0 && <Text c="dimmed">No attempt yet.</Text>}
      <Group>
        <Button
          variant="default"
          size="xs"
          disabled={attempts.length === 0}
          onClick={() => downloadCsv(`webhook-${event.id}.csv`, toCsv(COLUMNS, attempts))}
        >
          Export CSV
        </Button>
      </Group>
    </Stack>
  );
}
