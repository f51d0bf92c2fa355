import { Alert, Badge, Button, Group, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { type FormEvent, useCallback, useState } from 'react';
import { api, ok } from '../../api/client';
import { can, useSession } from '../../session/session';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { Link } from '../../ui/Link';
import { type Column, ListView } from '../../ui/ListView';
import { when } from '../../ui/format';
import { DateTimeField, isoToLocal, localToIso } from '../audit/DateTimeField';
import { CELL_BADGE, EVENT_STATUS_COLORS, EVENT_STATUS_LABELS, type Mode, MODES, type WebhookEvent } from './labels';

type StatusFilter = WebhookEvent['status'] | 'undelivered' | '';
const STATUS_FILTERS: Record<Exclude<StatusFilter, ''>, string> = {
  undelivered: 'Undelivered (failed or held)',
  ...EVENT_STATUS_LABELS,
};

interface Filters {
  status: StatusFilter;
  eventType: string;
  mode: Mode | '';
  since: string;
}

function columns(integrationId: string): Column<WebhookEvent>[] {
  return [
    { label: 'Received', text: (e) => when(e.receivedAt) },
    {
      label: 'Event',
      text: (e) => e.event,
      render: (e) => (
        <Link to={`/partners/${integrationId}/events/${e.id}`} testId={`event-link-${e.id}`}>
          {e.event}
        </Link>
      ),
    },
    { label: 'Mode', text: (e) => e.mode },
    {
      label: 'Status',
      text: (e) => e.status,
      render: (e) => (
        <Badge styles={CELL_BADGE} color={EVENT_STATUS_COLORS[e.status]}>
          {EVENT_STATUS_LABELS[e.status]}
        </Badge>
      ),
    },
    { label: 'Attempts', text: (e) => String(e.attemptCount) },
    { label: 'Resent', text: (e) => String(e.resendCount) },
    { label: 'Last attempt', text: (e) => when(e.lastAttemptAt) },
    { label: 'Delivered', text: (e) => when(e.deliveredAt) },
    { label: 'Event id', text: (e) => e.id },
  ];
}

/**
 * The integration's webhook events, newest received first, filtered by delivery state (held and
 * undelivered included), type, mode and time; each opens its delivery log. With webhooks.manage,
 * "Recover undelivered" queues again every failed or held event received since a time.
 */
export function Events({ integrationId }: { integrationId: string }) {
  const session = useSession();
  const [draft, setDraft] = useState<Filters>({ status: '', eventType: '', mode: '', since: '' });
  const [filters, setFilters] = useState<Filters>(draft);
  const set = (patch: Partial<Filters>) => setDraft((d) => ({ ...d, ...patch }));

  const fetchPage = useCallback(
    async (cursor: string | null) => {
      const page = await ok(
        api.GET('/api/backoffice/webhooks/integrations/{integrationId}/events', {
          params: {
            path: { integrationId },
            query: {
              status: filters.status || undefined,
              eventType: filters.eventType.trim() || undefined,
              mode: filters.mode || undefined,
              since: localToIso(filters.since),
              cursor: cursor ?? undefined,
              limit: 50,
            },
          },
        }),
      );
      return { items: page.data, nextCursor: page.nextCursor };
    },
    [integrationId, filters],
  );

  return (
    <Stack component="section" aria-labelledby="events-title" gap="xs">
      <Title order={2} size="h4" id="events-title">
        Webhook events
      </Title>
      <form
        role="search"
        aria-label="Filter webhook events"
        onSubmit={(event) => {
          event.preventDefault();
          setFilters(draft);
        }}
      >
        <Group align="end">
          <Select
            label="Delivery status"
            allowDeselect={false}
            value={draft.status}
            onChange={(v) => set({ status: (v ?? '') as StatusFilter })}
            data={[{ value: '', label: 'Any status' }, ...Object.entries(STATUS_FILTERS).map(([value, label]) => ({ value, label }))]}
          />
          <TextInput
            label="Event type"
            placeholder="order.paid"
            value={draft.eventType}
            onChange={(e) => set({ eventType: e.currentTarget.value })}
          />
          <Select
            label="Endpoint mode"
            allowDeselect={false}
            value={draft.mode}
            onChange={(v) => set({ mode: (v ?? '') as Mode | '' })}
            data={[{ value: '', label: 'Both modes' }, ...MODES.map((m) => ({ value: m, label: m }))]}
          />
          <DateTimeField label="Received since" value={draft.since} onChange={(since) => set({ since })} />
          <Button type="submit">Apply filters</Button>
        </Group>
      </form>
      <ListView
        name="webhook-events"
        caption="Webhook events, newest received first"
        columns={columns(integrationId)}
        fetchPage={fetchPage}
        rowKey={(e) => e.id}
        empty="No event matches."
      />
      {can(session, 'webhooks.manage') && <Recover integrationId={integrationId} />}
    </Stack>
  );
}

/** Queues again every failed or held event received since a time (at most 31 days back). */
function Recover({ integrationId }: { integrationId: string }) {
  const [since, setSince] = useState(() => isoToLocal(new Date(Date.now() - 86_400_000)));
  const [mode, setMode] = useState<Mode | ''>('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [done, setDone] = useState<string>();

  async function recover(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    setDone(undefined);
    try {
      const result = await ok(
        api.POST('/api/backoffice/webhooks/integrations/{integrationId}/recover', {
          params: { path: { integrationId } },
          body: { since: localToIso(since) ?? since, ...(mode ? { mode } : {}) },
        }),
      );
      setDone(
        `${result.queued} undelivered event${result.queued === 1 ? '' : 's'} received between ${when(result.since)} and ${when(result.until)} queued again.`,
      );
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={recover} aria-label="Recover undelivered events">
      <Stack gap="xs" maw={720}>
        <Title order={3} size="h5">
          Recover undelivered events
        </Title>
        <Text size="sm" c="dimmed">
          Queues again every failed or held event received since the time you choose (at most 31 days back). Delivered and pending events
          are left alone; held events stay held until their endpoint is enabled.
        </Text>
        <ErrorNotice error={error} title="Recovery was refused" />
        {done && (
          <Alert color="green" role="status" data-testid="recover-result">
            {done}
          </Alert>
        )}
        <Group align="end">
          <DateTimeField label="Recover undelivered since" value={since} onChange={setSince} required />
          <Select
            label="Recover for mode"
            allowDeselect={false}
            value={mode}
            onChange={(v) => setMode((v ?? '') as Mode | '')}
            data={[{ value: '', label: 'Both modes' }, ...MODES.map((m) => ({ value: m, label: m }))]}
          />
          <Button type="submit" loading={busy}>
            Recover undelivered
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
