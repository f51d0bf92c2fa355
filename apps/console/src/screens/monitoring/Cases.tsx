import { Button, Checkbox, Group, Select, Text, TextInput } from '@mantine/core';
import { type FormEvent, useCallback, useState } from 'react';
import { api, ok } from '../../api/client';
import type { paths } from '../../api/schema';
import { useSession } from '../../session/session';
import { Link } from '../../ui/Link';
import { type Column, ListView } from '../../ui/ListView';
import { when } from '../../ui/format';
import type { ScreenProps } from '../registry';
import { CASE_STATUS_COLORS, CASE_STATUS_LABELS, type CaseStatus, type CaseSummary, DECISION_LABELS, duration, shortId } from './labels';

type Filters = Omit<NonNullable<paths['/api/v1/compliance/cases']['get']['parameters']['query']>, 'cursor' | 'limit'>;

export function CaseStatusText({ status }: { status: CaseStatus }) {
  return (
    <Text size="sm" fw={600} c={`${CASE_STATUS_COLORS[status]}.8`} data-testid="case-status">
      {CASE_STATUS_LABELS[status]}
    </Text>
  );
}

const COLUMNS: Column<CaseSummary>[] = [
  {
    label: 'Case',
    text: (c) => c.reference,
    render: (c) => (
      <Link to={`/compliance/cases/${c.id}`} testId={`case-link-${c.reference}`}>
        {c.reference}
      </Link>
    ),
  },
  { label: 'Status', text: (c) => CASE_STATUS_LABELS[c.status], csv: (c) => c.status, render: (c) => <CaseStatusText status={c.status} /> },
  {
    label: 'Subject',
    text: (c) => `${c.subjectKind} ${c.subjectUserId}`,
    render: (c) => (
      <Link to={`/people/${c.subjectUserId}`}>
        {c.subjectKind.toLowerCase()} {shortId(c.subjectUserId)}
      </Link>
    ),
  },
  { label: 'Alerts', text: (c) => String(c.alertCount) },
  { label: 'Assigned to', text: (c) => c.assigneeId ?? '', render: (c) => shortId(c.assigneeId) },
  { label: 'Opened', text: (c) => when(c.clock.openedAt), csv: (c) => c.clock.openedAt },
  { label: 'Age', text: (c) => duration(c.clock.ageSeconds), csv: (c) => String(c.clock.ageSeconds) },
  { label: 'Decision', text: (c) => (c.decision ? DECISION_LABELS[c.decision] : ''), csv: (c) => c.decision ?? '' },
];

/** Compliance cases: one per person at a time, gathering the alerts about them until an officer decides. */
export function Cases({ query }: ScreenProps) {
  const me = useSession()?.me.userId;
  const [form, setForm] = useState({ status: query.get('status') ?? '', mine: false, subjectUserId: '' });
  const [filters, setFilters] = useState<Filters>(() => ({ status: (form.status || undefined) as CaseStatus | undefined }));
  const set = (patch: Partial<typeof form>) => setForm((f) => ({ ...f, ...patch }));

  function submit(event: FormEvent) {
    event.preventDefault();
    setFilters({
      status: (form.status || undefined) as CaseStatus | undefined,
      assigneeId: form.mine ? me : undefined,
      subjectUserId: form.subjectUserId.trim() || undefined,
    });
  }

  const fetchPage = useCallback(
    (cursor: string | null) =>
      ok(api.GET('/api/v1/compliance/cases', { params: { query: { ...filters, cursor: cursor ?? undefined, limit: 50 } } })),
    [filters],
  );

  return (
    <div>
      <form onSubmit={submit} role="search" aria-label="Filter cases">
        <Group mb="md" align="end">
          <Select
            label="Status"
            value={form.status}
            onChange={(v) => set({ status: v ?? '' })}
            data={[{ value: '', label: 'Any status' }, ...Object.entries(CASE_STATUS_LABELS).map(([value, label]) => ({ value, label }))]}
            allowDeselect={false}
          />
          <TextInput
            label="Subject (user id)"
            value={form.subjectUserId}
            onChange={(e) => set({ subjectUserId: e.currentTarget.value })}
            w={320}
          />
          <Checkbox label="Assigned to me" checked={form.mine} onChange={(e) => set({ mine: e.currentTarget.checked })} mb={8} />
          <Button type="submit" variant="default">
            Filter
          </Button>
        </Group>
      </form>
      <ListView
        name="cases"
        caption="Compliance cases, newest first"
        columns={COLUMNS}
        fetchPage={fetchPage}
        rowKey={(c) => c.id}
        empty="No case matches."
      />
    </div>
  );
}
