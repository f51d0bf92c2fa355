import { Checkbox, Group, Select, Text, TextInput } from '@mantine/core';
import { useCallback, useState } from 'react';
import { api, ok } from '../../api/client';
import { useSession } from '../../session/session';
import { Link } from '../../ui/Link';
import { type Column, ListView } from '../../ui/ListView';
import { money, when } from '../../ui/format';
import {
  ACTION_LABELS,
  actionLabel,
  type Approval,
  type ApprovalAction,
  type ApprovalStatus,
  STATUS_COLORS,
  STATUS_LABELS,
} from './labels';

/** Age filter: requests created at least this long ago (createdBefore = now − age). */
const AGES: Record<string, number> = { '': 0, '1h': 3_600_000, '24h': 86_400_000, '3d': 3 * 86_400_000, '7d': 7 * 86_400_000 };
const AGE_LABELS: Record<string, string> = {
  '': 'Any age',
  '1h': 'Older than 1 hour',
  '24h': 'Older than 1 day',
  '3d': 'Older than 3 days',
  '7d': 'Older than 7 days',
};

const COLUMNS: Column<Approval>[] = [
  { label: 'Submitted', text: (a) => when(a.createdAt) },
  {
    label: 'Action',
    text: (a) => actionLabel(a.action),
    render: (a) => <Link to={`/approvals/${a.id}`}>{actionLabel(a.action)}</Link>,
  },
  { label: 'Summary', text: (a) => a.summary },
  {
    label: 'Amount',
    text: (a) => (a.amount ? money(a.amount.value, a.amount.currency) : ''),
    csv: (a) => (a.amount ? `${a.amount.value} ${a.amount.currency}` : ''),
  },
  { label: 'Maker', text: (a) => `${a.maker.role} ${a.maker.userId}` },
  {
    label: 'Status',
    text: (a) => a.status,
    render: (a) => (
      <Text size="sm" fw={600} c={STATUS_COLORS[a.status] === 'yellow' ? 'orange.8' : STATUS_COLORS[a.status]}>
        {STATUS_LABELS[a.status]}
      </Text>
    ),
  },
  { label: 'Expires', text: (a) => when(a.expiresAt) },
  { label: 'Reason', text: (a) => a.reason },
];

/** The checkers' inbox: requests of the maker-checker engine, filtered by status, action, maker and age. */
export function ApprovalsInbox({ query }: { query: URLSearchParams }) {
  const [status, setStatus] = useState<ApprovalStatus | ''>((query.get('status') as ApprovalStatus) ?? 'PENDING');
  const [action, setAction] = useState<ApprovalAction | ''>('');
  const [maker, setMaker] = useState('');
  const [age, setAge] = useState('');
  const [mine, setMine] = useState(false);
  const me = useSession()?.me.userId;

  const fetchPage = useCallback(
    async (cursor: string | null) => {
      const createdBefore = AGES[age] ? new Date(Date.now() - AGES[age]).toISOString() : undefined;
      return ok(
        api.GET('/api/backoffice/approvals', {
          params: {
            query: {
              status: status || undefined,
              action: action || undefined,
              makerId: (mine ? me : maker.trim()) || undefined,
              createdBefore,
              cursor: cursor ?? undefined,
              limit: 50,
            },
          },
        }),
      );
    },
    [status, action, maker, age, mine, me],
  );

  return (
    <div>
      <Group mb="md" align="end" role="search" aria-label="Filter approval requests">
        <Select
          label="Status"
          value={status}
          onChange={(v) => setStatus((v ?? '') as ApprovalStatus | '')}
          data={[{ value: '', label: 'Any status' }, ...Object.entries(STATUS_LABELS).map(([value, label]) => ({ value, label }))]}
          allowDeselect={false}
        />
        <Select
          label="Action"
          value={action}
          onChange={(v) => setAction((v ?? '') as ApprovalAction | '')}
          data={[{ value: '', label: 'Any action' }, ...Object.entries(ACTION_LABELS).map(([value, label]) => ({ value, label }))]}
          allowDeselect={false}
        />
        <TextInput
          label="Maker (user id)"
          value={mine ? (me ?? '') : maker}
          disabled={mine}
          onChange={(e) => setMaker(e.currentTarget.value)}
        />
        <Checkbox label="Submitted by me" checked={mine} onChange={(e) => setMine(e.currentTarget.checked)} mb={8} />
        <Select
          label="Age"
          value={age}
          onChange={(v) => setAge(v ?? '')}
          data={Object.entries(AGE_LABELS).map(([value, label]) => ({ value, label }))}
          allowDeselect={false}
        />
      </Group>
      <ListView
        name="approvals"
        caption="Approval requests, newest first"
        columns={COLUMNS}
        fetchPage={fetchPage}
        rowKey={(a) => a.id}
        empty="No request matches."
      />
    </div>
  );
}
