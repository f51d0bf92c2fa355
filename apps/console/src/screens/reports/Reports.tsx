import { Badge, Button, Group, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { type FormEvent, useCallback, useState } from 'react';
import { api, ok } from '../../api/client';
import type { paths } from '../../api/schema';
import { navigate } from '../../router';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { Link } from '../../ui/Link';
import { type Column, ListView } from '../../ui/ListView';
import { westAfricaDay, when } from '../../ui/format';
import type { ScreenProps } from '../registry';
import { KIND_LABELS, type Report, STATE_COLORS, STATE_LABELS, kindLabel, stateLabel } from './labels';

type Filters = Omit<NonNullable<paths['/api/v1/compliance/reports']['get']['parameters']['query']>, 'cursor' | 'limit'>;

/** The written confirmation deadline of a filed suspicion report, in words and colour. */
export function DeadlineBadge({ report }: { report: Pick<Report, 'confirmationDueAt' | 'overdue' | 'dueSoon'> }) {
  if (!report.confirmationDueAt) return null;
  if (report.overdue)
    return (
      <Badge color="red" data-testid="report-overdue">
        overdue since {when(report.confirmationDueAt)}
      </Badge>
    );
  return (
    <Badge color={report.dueSoon ? 'orange' : 'gray'} variant="light" data-testid="report-due">
      written confirmation due {when(report.confirmationDueAt)}
    </Badge>
  );
}

const COLUMNS: Column<Report>[] = [
  {
    label: 'Reference',
    text: (r) => r.reference,
    render: (r) => (
      <Link to={`/compliance/reports/${r.id}`} testId={`report-link-${r.reference}`}>
        {r.reference}
      </Link>
    ),
  },
  { label: 'Kind', text: (r) => kindLabel(r.kind), csv: (r) => r.kind },
  { label: 'Day', text: (r) => r.periodDate },
  {
    label: 'State',
    text: (r) => stateLabel(r.state),
    csv: (r) => r.state,
    render: (r) => (
      <Stack gap={2} align="flex-start">
        <Text size="sm" fw={600} c={`${STATE_COLORS[r.state] ?? 'gray'}.8`}>
          {stateLabel(r.state)}
        </Text>
        <DeadlineBadge report={r} />
      </Stack>
    ),
  },
  { label: 'Operations', text: (r) => String(r.operationCount) },
  { label: 'Generated', text: (r) => when(r.generatedAt), csv: (r) => r.generatedAt },
  {
    label: 'By',
    text: (r) => (r.generatedBy === 'system' ? 'the daily job' : `${r.generatedByRole} ${r.generatedBy}`),
    render: (r) => (r.generatedBy === 'system' ? 'the daily job' : `${r.generatedByRole} ${r.generatedBy.slice(0, 8)}…`),
  },
  { label: 'Confirmation due', text: (r) => (r.confirmationDueAt ? when(r.confirmationDueAt) : ''), csv: (r) => r.confirmationDueAt ?? '' },
];

/**
 * Regulatory reports (docs/regulatory-reports.md): the daily threshold reports (one per day, made by
 * a job each morning or here on demand) and the suspicion reports made from cases, with their state
 * and the 48-hour written confirmation deadline of a filed suspicion report.
 */
export function Reports({ query }: ScreenProps) {
  const [form, setForm] = useState({
    kind: query.get('kind') ?? '',
    state: query.get('state') ?? '',
    deadline: query.get('deadline') ?? '',
    dateFrom: '',
    dateTo: '',
  });
  const [filters, setFilters] = useState<Filters>(() => ({
    kind: (form.kind || undefined) as Filters['kind'],
    state: (form.state || undefined) as Filters['state'],
    deadline: (form.deadline || undefined) as Filters['deadline'],
  }));
  const set = (patch: Partial<typeof form>) => setForm((f) => ({ ...f, ...patch }));

  function submit(event: FormEvent) {
    event.preventDefault();
    setFilters({
      kind: (form.kind || undefined) as Filters['kind'],
      state: (form.state || undefined) as Filters['state'],
      deadline: (form.deadline || undefined) as Filters['deadline'],
      dateFrom: form.dateFrom || undefined,
      dateTo: form.dateTo || undefined,
    });
  }

  const fetchPage = useCallback(
    (cursor: string | null) =>
      ok(api.GET('/api/v1/compliance/reports', { params: { query: { ...filters, cursor: cursor ?? undefined, limit: 50 } } })),
    [filters],
  );

  return (
    <Stack>
      <GenerateDaily />
      <Title order={2} size="h4">
        Reports
      </Title>
      <form onSubmit={submit} role="search" aria-label="Filter reports">
        <Group align="end">
          <Select
            label="Kind"
            value={form.kind}
            onChange={(v) => set({ kind: v ?? '' })}
            data={[{ value: '', label: 'Any kind' }, ...Object.entries(KIND_LABELS).map(([value, label]) => ({ value, label }))]}
            allowDeselect={false}
          />
          <Select
            label="State"
            value={form.state}
            onChange={(v) => set({ state: v ?? '' })}
            data={[{ value: '', label: 'Any state' }, ...Object.entries(STATE_LABELS).map(([value, label]) => ({ value, label }))]}
            allowDeselect={false}
          />
          <Select
            label="Written confirmation"
            value={form.deadline}
            onChange={(v) => set({ deadline: v ?? '' })}
            data={[
              { value: '', label: 'Any' },
              { value: 'OVERDUE', label: 'Overdue (more than 48 h after filing)' },
              { value: 'DUE_SOON', label: 'Due soon' },
            ]}
            allowDeselect={false}
          />
          <TextInput label="Day from" type="date" value={form.dateFrom} onChange={(e) => set({ dateFrom: e.currentTarget.value })} />
          <TextInput label="Day to" type="date" value={form.dateTo} onChange={(e) => set({ dateTo: e.currentTarget.value })} />
          <Button type="submit" variant="default">
            Filter
          </Button>
        </Group>
      </form>
      <ListView
        name="reports"
        caption="Regulatory reports, newest first"
        columns={COLUMNS}
        fetchPage={fetchPage}
        rowKey={(r) => r.id}
        empty="No report matches."
      />
    </Stack>
  );
}

/** Generates (or finds) the daily threshold report of a day that is over, then opens it. */
function GenerateDaily() {
  const [date, setDate] = useState(westAfricaDay(-1));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const report = await ok(api.POST('/api/v1/compliance/reports/daily', { body: { date } }));
      navigate(`/compliance/reports/${report.id}`);
    } catch (failure) {
      setError(failure);
      setBusy(false);
    }
  }

  return (
    <form onSubmit={submit} aria-label="Generate a daily threshold report">
      <Stack gap="xs" maw={720}>
        <Title order={2} size="h4">
          Daily threshold report
        </Title>
        <Text size="sm">
          Every cash-in, cash-out and transfer of the day at or above the reporting threshold. A day already reported opens its stored
          report, unchanged.
        </Text>
        <ErrorNotice error={error} />
        <Group align="end">
          <TextInput
            label="Day (West Africa Time)"
            type="date"
            required
            value={date}
            max={westAfricaDay(-1)}
            onChange={(e) => setDate(e.currentTarget.value)}
          />
          <Button type="submit" loading={busy}>
            Generate the daily report
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
