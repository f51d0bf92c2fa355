import { Badge, Group, Select, Stack, Title } from '@mantine/core';
import { useCallback, useState } from 'react';
import { api, ok } from '../../api/client';
import { type Column, ListView } from '../../ui/ListView';
import { when } from '../../ui/format';
import { CELL_BADGE, CONNECTION_STATUS_LABELS, type Connection, type Mode, MODES } from './labels';

const COLUMNS: Column<Connection>[] = [
  { label: 'Requested', text: (c) => when(c.createdAt) },
  { label: 'Mode', text: (c) => c.mode },
  { label: 'Merchant', text: (c) => c.merchantId ?? '' },
  {
    label: 'Status',
    text: (c) => c.status,
    render: (c) => (
      <Badge styles={CELL_BADGE} color={c.status === 'active' ? 'green' : c.status === 'pending' ? 'yellow' : 'gray'}>
        {CONNECTION_STATUS_LABELS[c.status]}
      </Badge>
    ),
  },
  { label: 'Scopes', text: (c) => c.scopes.join(' ') },
  { label: 'Activated', text: (c) => when(c.activatedAt) },
  { label: 'Revoked', text: (c) => (c.revokedAt ? `${when(c.revokedAt)} by ${c.revokedBy ?? '?'}` : '') },
  { label: 'Reason given', text: (c) => c.requestedReason ?? '' },
  { label: 'Id', text: (c) => c.id },
];

/** The integration's connections to merchants, filtered by status and mode. */
export function Connections({ integrationId }: { integrationId: string }) {
  const [status, setStatus] = useState<Connection['status'] | ''>('');
  const [mode, setMode] = useState<Mode | ''>('');
  const fetchPage = useCallback(
    async (cursor: string | null) => {
      const page = await ok(
        api.GET('/api/backoffice/partners/integrations/{integrationId}/connections', {
          params: {
            path: { integrationId },
            query: { status: status || undefined, mode: mode || undefined, cursor: cursor ?? undefined, limit: 50 },
          },
        }),
      );
      return { items: page.data, nextCursor: page.nextCursor };
    },
    [integrationId, status, mode],
  );
  return (
    <Stack component="section" aria-labelledby="connections-title" gap="xs">
      <Title order={2} size="h4" id="connections-title">
        Connections to merchants
      </Title>
      <Group align="end" role="search" aria-label="Filter connections">
        <Select
          label="Connection status"
          allowDeselect={false}
          value={status}
          onChange={(v) => setStatus((v ?? '') as Connection['status'] | '')}
          data={[
            { value: '', label: 'Any status' },
            ...Object.entries(CONNECTION_STATUS_LABELS).map(([value, label]) => ({ value, label })),
          ]}
        />
        <Select
          label="Connection mode"
          allowDeselect={false}
          value={mode}
          onChange={(v) => setMode((v ?? '') as Mode | '')}
          data={[{ value: '', label: 'Both modes' }, ...MODES.map((m) => ({ value: m, label: m }))]}
        />
      </Group>
      <ListView
        name="connections"
        caption="Connections, newest first"
        columns={COLUMNS}
        fetchPage={fetchPage}
        rowKey={(c) => c.id}
        empty="No connection matches."
      />
    </Stack>
  );
}
