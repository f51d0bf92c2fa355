import { Button, Group, Text, TextInput } from '@mantine/core';
import { type FormEvent, useCallback, useState } from 'react';
import { api, ok } from '../../api/client';
import type { components } from '../../api/schema';
import { navigate } from '../../router';
import { Link } from '../../ui/Link';
import { type Column, ListView } from '../../ui/ListView';
import { when } from '../../ui/format';
import type { ScreenProps } from '../registry';

type Person = components['schemas']['PersonSummaryView'];

const name = (p: Person) => p.businessName ?? ([p.firstName, p.lastName].filter(Boolean).join(' ') || '—');

const COLUMNS: Column<Person>[] = [
  { label: 'Name', text: name, render: (p) => <Link to={`/people/${p.userId}`}>{name(p)}</Link> },
  { label: 'Phone', text: (p) => p.phone ?? '' },
  { label: 'Role', text: (p) => p.role },
  { label: 'Agent code', text: (p) => p.agentCode ?? '' },
  {
    label: 'Status',
    text: (p) => p.status ?? '',
    render: (p) => (
      <Text size="sm" fw={600} c={p.status === 'active' ? 'green.8' : 'red.8'}>
        {p.status}
      </Text>
    ),
  },
  { label: 'KYC tier', text: (p) => p.kycTier ?? '' },
  { label: 'Wallet', text: (p) => p.walletId ?? '' },
  { label: 'Since', text: (p) => when(p.createdAt) },
];

/** Customers, agents, merchants and staff by phone, name, id, wallet or account id. */
export function PeopleSearch({ query }: ScreenProps) {
  const initial = query.get('q') ?? '';
  const [text, setText] = useState(initial);
  const [q, setQ] = useState(initial);

  const fetchPage = useCallback(
    (cursor: string | null) => ok(api.GET('/api/backoffice/people', { params: { query: { q, cursor: cursor ?? undefined, limit: 25 } } })),
    [q],
  );

  function submit(event: FormEvent) {
    event.preventDefault();
    setQ(text.trim());
    navigate(`/people?q=${encodeURIComponent(text.trim())}`);
  }

  return (
    <div>
      <form onSubmit={submit} role="search" aria-label="Search people">
        <Group align="end" mb="md">
          <TextInput
            label="Phone, name, user id, wallet or account id"
            value={text}
            onChange={(e) => setText(e.currentTarget.value)}
            w={420}
            data-testid="people-query"
          />
          <Button type="submit">Search</Button>
        </Group>
      </form>
      {q && (
        <ListView
          name="people"
          caption={`People matching “${q}”`}
          columns={COLUMNS}
          fetchPage={fetchPage}
          rowKey={(p) => p.userId}
          empty="Nobody matches."
        />
      )}
    </div>
  );
}
