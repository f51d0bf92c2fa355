import { Anchor, Badge, Button, Group, Select, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { type FormEvent, useCallback, useMemo, useState } from 'react';
import { api, ok } from '../../api/client';
import { type Column, ListView } from '../../ui/ListView';
import { when } from '../../ui/format';
import { ChainCheck } from './ChainCheck';
import { DateTimeField, localToIso } from './DateTimeField';
import { type AuditRecord, ROLE_LABELS, type StaffRole } from './labels';

interface Filters {
  actor: string;
  role: StaffRole | '';
  action: string;
  targetType: string;
  targetId: string;
  from: string;
  to: string;
  outcome: 'success' | 'refused' | '';
  code: string;
  requestId: string;
}

const EMPTY: Filters = {
  actor: '',
  role: '',
  action: '',
  targetType: '',
  targetId: '',
  from: '',
  to: '',
  outcome: '',
  code: '',
  requestId: '',
};

function outcomeText(r: AuditRecord): string {
  if (!r.outcome) return 'started';
  return `${r.outcome.status}${r.outcome.code ? ` ${r.outcome.code}` : ''}`;
}

const targetText = (r: AuditRecord) => (r.target ? [r.target.type, r.target.id].filter(Boolean).join(' ') : '');

/** The start of a long id, the whole id on hover. */
function ShortId({ prefix, id }: { prefix: string; id: string }) {
  return (
    <Text span size="sm" title={id}>
      {prefix} {id.slice(0, 8)}…
    </Text>
  );
}

/** The columns; a request id opens every record of that request (a write's `started` and its outcome). */
function columns(byRequest: (requestId: string) => void): Column<AuditRecord>[] {
  return [
    { label: '#', text: (r) => String(r.seq) },
    { label: 'When', text: (r) => when(r.at) },
    // ids are long: the table shows their start (the CSV and the hover keep them whole) so it fits 1366 px
    {
      label: 'Actor',
      text: (r) => `${r.actor.role} ${r.actor.userId}`,
      render: (r) => <ShortId prefix={r.actor.role} id={r.actor.userId} />,
    },
    { label: 'Action', text: (r) => (r.actionName ? `${r.actionName} (${r.action})` : r.action) },
    {
      label: 'Target',
      text: targetText,
      render: (r) => (r.target?.id && r.target.id.length > 12 ? <ShortId prefix={r.target.type ?? ''} id={r.target.id} /> : targetText(r)),
    },
    {
      label: 'Outcome',
      text: outcomeText,
      render: (r) => (
        <Badge styles={{ label: { overflow: 'visible' } }} color={!r.outcome ? 'blue' : r.outcome.status < 400 ? 'green' : 'red'} tt="none">
          {outcomeText(r)}
        </Badge>
      ),
    },
    {
      label: 'Request id',
      text: (r) => r.requestId,
      render: (r) => (
        <Anchor
          component="button"
          type="button"
          size="sm"
          onClick={() => byRequest(r.requestId)}
          aria-label={`Every record of request ${r.requestId}`}
        >
          {r.requestId.slice(0, 8)}…
        </Anchor>
      ),
    },
  ];
}

/** The staff audit trail: who did or read what, when, on whom, and how it ended; searchable, exportable, and its hash chain verifiable. */
export function AuditTrail() {
  const [draft, setDraft] = useState<Filters>(EMPTY);
  const [filters, setFilters] = useState<Filters>(EMPTY);
  const set = (patch: Partial<Filters>) => setDraft((d) => ({ ...d, ...patch }));

  const fetchPage = useCallback(
    async (cursor: string | null) => {
      const text = (value: string) => value.trim() || undefined;
      return ok(
        api.GET('/api/backoffice/audit-trail', {
          params: {
            query: {
              actor: text(filters.actor),
              role: filters.role || undefined,
              action: text(filters.action),
              targetType: text(filters.targetType),
              targetId: text(filters.targetId),
              from: localToIso(filters.from),
              to: localToIso(filters.to),
              outcome: filters.outcome || undefined,
              code: text(filters.code),
              requestId: text(filters.requestId),
              cursor: cursor ?? undefined,
              limit: 100,
            },
          },
        }),
      );
    },
    [filters],
  );

  const byRequest = useCallback((requestId: string) => {
    const next = { ...EMPTY, requestId };
    setDraft(next);
    setFilters(next);
  }, []);
  const shown = useMemo(() => columns(byRequest), [byRequest]);

  function search(event: FormEvent) {
    event.preventDefault();
    setFilters(draft);
  }

  return (
    <Stack>
      <ChainCheck />
      <form onSubmit={search} role="search" aria-label="Search the audit trail">
        <SimpleGrid cols={{ base: 2, md: 5 }} spacing="sm">
          <TextInput label="Actor (user id)" value={draft.actor} onChange={(e) => set({ actor: e.currentTarget.value })} />
          <Select
            label="Role"
            allowDeselect={false}
            value={draft.role}
            onChange={(v) => set({ role: (v ?? '') as StaffRole | '' })}
            data={[{ value: '', label: 'Any role' }, ...Object.entries(ROLE_LABELS).map(([value, label]) => ({ value, label }))]}
          />
          <TextInput
            label="Action"
            placeholder="POST /api/backoffice/…"
            value={draft.action}
            onChange={(e) => set({ action: e.currentTarget.value })}
          />
          <TextInput
            label="Target type"
            placeholder="person"
            value={draft.targetType}
            onChange={(e) => set({ targetType: e.currentTarget.value })}
          />
          <TextInput label="Target id" value={draft.targetId} onChange={(e) => set({ targetId: e.currentTarget.value })} />
          <DateTimeField label="From" value={draft.from} onChange={(from) => set({ from })} />
          <DateTimeField label="To" value={draft.to} onChange={(to) => set({ to })} />
          <Select
            label="Outcome"
            allowDeselect={false}
            value={draft.outcome}
            onChange={(v) => set({ outcome: (v ?? '') as Filters['outcome'] })}
            data={[
              { value: '', label: 'Any outcome' },
              { value: 'success', label: 'Succeeded' },
              { value: 'refused', label: 'Refused' },
            ]}
          />
          <TextInput label="Error code" placeholder="FORBIDDEN" value={draft.code} onChange={(e) => set({ code: e.currentTarget.value })} />
          <TextInput label="Request id" value={draft.requestId} onChange={(e) => set({ requestId: e.currentTarget.value })} />
        </SimpleGrid>
        <Group mt="sm">
          <Button type="submit">Search</Button>
          <Button
            variant="default"
            onClick={() => {
              setDraft(EMPTY);
              setFilters(EMPTY);
            }}
          >
            Clear filters
          </Button>
        </Group>
      </form>
      <ListView
        name="audit-trail"
        caption="Staff audit trail, newest first"
        columns={shown}
        fetchPage={fetchPage}
        rowKey={(r) => String(r.seq)}
        empty="No record matches."
      />
    </Stack>
  );
}
