import { Badge, Button, Group, Select } from '@mantine/core';
import { type FormEvent, useCallback, useState } from 'react';
import { api, ok } from '../../api/client';
import { Link } from '../../ui/Link';
import { type Column, ListView } from '../../ui/ListView';
import { when } from '../../ui/format';
import { DateTimeField, localToIso } from '../audit/DateTimeField';
import { CELL_BADGE, KIND_LABELS, STATE_COLORS, STATE_LABELS, type Workflow, type WorkflowKind, type WorkflowState } from './labels';

/** The states the list answers: a finished registration is never listed. */
const LISTED_STATES: Array<Exclude<WorkflowState, 'succeeded'>> = ['running', 'compensating', 'compensated', 'compensation_failed'];

const COLUMNS: Column<Workflow>[] = [
  { label: 'Started', text: (w) => when(w.startedAt) },
  {
    label: 'Kind',
    text: (w) => KIND_LABELS[w.kind],
    render: (w) => (
      <Link to={`/workflows/${w.id}`} testId={`workflow-link-${w.id}`}>
        {KIND_LABELS[w.kind]}
      </Link>
    ),
  },
  {
    label: 'State',
    text: (w) => w.state,
    render: (w) => (
      <Badge styles={CELL_BADGE} color={STATE_COLORS[w.state]}>
        {STATE_LABELS[w.state]}
      </Badge>
    ),
  },
  { label: 'Phone', text: (w) => w.phone },
  { label: 'Person', text: (w) => (w.subject ? `${w.subject.firstName} ${w.subject.lastName} (${w.subject.role})` : '') },
  { label: 'Last step', text: (w) => (w.steps.length ? `${w.steps[w.steps.length - 1].step} ${w.steps[w.steps.length - 1].event}` : '') },
  { label: 'Error', text: (w) => (w.error ? `${w.error.code}: ${w.error.message}` : '') },
  { label: 'Updated', text: (w) => when(w.updatedAt) },
  { label: 'Id', text: (w) => w.id },
];

interface Filters {
  kind: WorkflowKind | '';
  state: WorkflowState | '';
  since: string;
}

/** Registrations not finished (running, being undone) or undone, newest first, each opening its saga log. */
export function Workflows() {
  const [draft, setDraft] = useState<Filters>({ kind: '', state: '', since: '' });
  const [filters, setFilters] = useState<Filters>(draft);
  const set = (patch: Partial<Filters>) => setDraft((d) => ({ ...d, ...patch }));

  const fetchPage = useCallback(
    async (cursor: string | null) =>
      ok(
        api.GET('/api/backoffice/workflows', {
          params: {
            query: {
              kind: filters.kind || undefined,
              state: (filters.state || undefined) as (typeof LISTED_STATES)[number] | undefined,
              since: localToIso(filters.since),
              cursor: cursor ?? undefined,
              limit: 50,
            },
          },
        }),
      ),
    [filters],
  );

  function apply(event: FormEvent) {
    event.preventDefault();
    setFilters(draft);
  }

  return (
    <div>
      <form onSubmit={apply} role="search" aria-label="Filter workflows">
        <Group mb="md" align="end">
          <Select
            label="Kind"
            allowDeselect={false}
            value={draft.kind}
            onChange={(v) => set({ kind: (v ?? '') as WorkflowKind | '' })}
            data={[{ value: '', label: 'Any kind' }, ...Object.entries(KIND_LABELS).map(([value, label]) => ({ value, label }))]}
          />
          <Select
            label="State"
            allowDeselect={false}
            value={draft.state}
            onChange={(v) => set({ state: (v ?? '') as WorkflowState | '' })}
            data={[{ value: '', label: 'Unfinished or undone' }, ...LISTED_STATES.map((s) => ({ value: s, label: STATE_LABELS[s] }))]}
          />
          <DateTimeField label="Started since" value={draft.since} onChange={(since) => set({ since })} />
          <Button type="submit">Apply filters</Button>
        </Group>
      </form>
      <ListView
        name="workflows"
        caption="Registrations not finished or undone, newest first"
        columns={COLUMNS}
        fetchPage={fetchPage}
        rowKey={(w) => w.id}
        empty="No unfinished or undone registration."
      />
    </div>
  );
}
