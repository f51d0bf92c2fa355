import { Badge } from '@mantine/core';
import { useCallback, useState } from 'react';
import { api, ok } from '../../api/client';
import { can, useSession } from '../../session/session';
import { Link } from '../../ui/Link';
import { type Column, ListView } from '../../ui/ListView';
import { when } from '../../ui/format';
import { CreateIntegration } from './CreateIntegration';
import { CELL_BADGE, type Integration } from './labels';

const COLUMNS: Column<Integration>[] = [
  {
    label: 'Integration',
    text: (i) => i.name,
    render: (i) => (
      <Link to={`/partners/${i.id}`} testId={`integration-link-${i.id}`}>
        {i.name}
      </Link>
    ),
  },
  {
    label: 'Status',
    text: (i) => i.status,
    render: (i) => (
      <Badge styles={CELL_BADGE} color={i.status === 'active' ? 'green' : 'gray'}>
        {i.status}
      </Badge>
    ),
  },
  { label: 'Technical contact', text: (i) => i.technicalContactEmail },
  { label: 'Active connections', text: (i) => String(i.connections.active) },
  { label: 'Pending connections', text: (i) => String(i.connections.pending) },
  { label: 'Created', text: (i) => when(i.createdAt) },
  { label: 'Id', text: (i) => i.id },
];

/** Partner integrations, newest first, each opening its page (keys, endpoints, connections, webhook log). */
export function PartnersList() {
  const session = useSession();
  const [generation, setGeneration] = useState(0);
  const fetchPage = useCallback(
    async (cursor: string | null) => {
      const page = await ok(
        api.GET('/api/backoffice/partners/integrations', { params: { query: { cursor: cursor ?? undefined, limit: 50 } } }),
      );
      return { items: page.data, nextCursor: page.nextCursor };
      // `generation` too: a new integration reloads the list
    },
    [generation],
  );
  return (
    <>
      {can(session, 'partners.manage') && <CreateIntegration onCreated={() => setGeneration((g) => g + 1)} />}
      <ListView
        name="integrations"
        caption="Partner integrations, newest first"
        columns={COLUMNS}
        fetchPage={fetchPage}
        rowKey={(i) => i.id}
        empty="No integration yet."
      />
    </>
  );
}
