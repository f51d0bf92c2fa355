import { Badge, Group, Stack, Table, Text } from '@mantine/core';
import { useCallback, useEffect, useState } from 'react';
import { api, ok } from '../../api/client';
import type { components } from '../../api/schema';
import { can, useSession } from '../../session/session';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { Link } from '../../ui/Link';
import { when } from '../../ui/format';
import type { ScreenProps } from '../registry';
import { Connections } from './Connections';
import { Endpoints } from './Endpoints';
import { EndpointSettings } from './EndpointSettings';
import { Events } from './Events';
import { Keys } from './Keys';

type Detail = components['schemas']['IntegrationDetailView'];

/** One partner integration on one page: what it is, its keys, its endpoints, its connections and its webhook log. */
export function IntegrationPage({ params }: ScreenProps) {
  const session = useSession();
  const [detail, setDetail] = useState<Detail>();
  const [error, setError] = useState<unknown>();

  const load = useCallback(async () => {
    try {
      setDetail(
        await ok(api.GET('/api/backoffice/partners/integrations/{integrationId}', { params: { path: { integrationId: params.id } } })),
      );
      setError(undefined);
    } catch (failure) {
      setError(failure);
    }
  }, [params.id]);
  useEffect(() => void load(), [load]);

  if (error && !detail) return <ErrorNotice error={error} />;
  if (!detail) return <Text aria-live="polite">Loading…</Text>;
  const { integration } = detail;
  const facts: Array<[string, string]> = [
    ['Name', integration.name],
    ['Technical contact', integration.technicalContactEmail],
    ['Connections', `${integration.connections.active} active, ${integration.connections.pending} pending`],
    ['Created', when(integration.createdAt)],
    ['Revoked', when(integration.revokedAt) || '—'],
    ['Id', integration.id],
  ];

  return (
    <Stack gap="lg">
      <Group>
        <Link to="/partners">← All integrations</Link>
        <Badge size="lg" color={integration.status === 'active' ? 'green' : 'gray'} data-testid="integration-status">
          {integration.status}
        </Badge>
      </Group>
      <ErrorNotice error={error} />
      <Table withTableBorder variant="vertical" maw={720} data-testid="integration-facts">
        <Table.Tbody>
          {facts.map(([label, value]) => (
            <Table.Tr key={label}>
              <Table.Th scope="row" w={180}>
                {label}
              </Table.Th>
              <Table.Td>{value}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <Endpoints integrationId={integration.id} endpoints={detail.endpoints} onChanged={() => void load()} />
      {can(session, 'partners.manage') && (
        <EndpointSettings
          integrationId={integration.id}
          endpoints={detail.endpoints}
          active={integration.status === 'active'}
          onChanged={() => void load()}
        />
      )}
      <Events integrationId={integration.id} />
      <Keys integrationId={integration.id} keys={detail.keys} onChanged={() => void load()} />
      <Connections integrationId={integration.id} />
    </Stack>
  );
}
