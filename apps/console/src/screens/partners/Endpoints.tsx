import { Alert, Badge, Button, List, Stack, Table, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { api, ok } from '../../api/client';
import { can, useSession } from '../../session/session';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { when } from '../../ui/format';
import { CELL_BADGE, type Endpoint, type Mode } from './labels';

/**
 * The integration's two webhook endpoints (live, test): URL, enabled or disabled with why and since
 * when, events held meanwhile, and the health history. "Enable endpoint" (webhooks.manage) sends
 * the held events out again.
 */
export function Endpoints(props: { integrationId: string; endpoints: Endpoint[]; onChanged: () => void }) {
  const session = useSession();
  const mayEnable = can(session, 'webhooks.manage');
  const [busy, setBusy] = useState<Mode>();
  const [error, setError] = useState<unknown>();
  const [done, setDone] = useState<string>();

  async function enable(mode: Mode) {
    setBusy(mode);
    setError(undefined);
    setDone(undefined);
    try {
      const result = await ok(
        api.POST('/api/backoffice/webhooks/integrations/{integrationId}/endpoints/{mode}/enable', {
          params: { path: { integrationId: props.integrationId, mode } },
        }),
      );
      setDone(
        `The ${mode} endpoint is ${result.endpoint.status}; ${result.replayed} held event${result.replayed === 1 ? '' : 's'} sent again.`,
      );
      props.onChanged();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(undefined);
    }
  }

  return (
    <Stack component="section" aria-labelledby="endpoints-title" gap="xs">
      <Title order={2} size="h4" id="endpoints-title">
        Webhook endpoints
      </Title>
      <ErrorNotice error={error} title="Enabling the endpoint was refused" />
      {done && (
        <Alert color="green" role="status" data-testid="endpoint-enabled">
          {done}
        </Alert>
      )}
      <Table.ScrollContainer minWidth={700}>
        <Table striped withTableBorder data-testid="endpoints-table">
          <Table.Caption>Where the platform sends this integration's events</Table.Caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Mode</Table.Th>
              <Table.Th scope="col">URL</Table.Th>
              <Table.Th scope="col">State</Table.Th>
              <Table.Th scope="col">Why / since</Table.Th>
              <Table.Th scope="col">Held events</Table.Th>
              <Table.Th scope="col">History</Table.Th>
              <Table.Th scope="col">Action</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {props.endpoints.map((e) => (
              <Table.Tr key={e.mode} data-testid={`endpoint-${e.mode}`}>
                <Table.Td>{e.mode}</Table.Td>
                <Table.Td style={{ wordBreak: 'break-all' }}>{e.url}</Table.Td>
                <Table.Td>
                  <Badge styles={CELL_BADGE} color={e.status === 'enabled' ? 'green' : 'red'} data-testid={`endpoint-${e.mode}-status`}>
                    {e.status}
                  </Badge>
                </Table.Td>
                <Table.Td>
                  {e.status === 'disabled' ? (
                    <Text size="sm">
                      {e.disabledReason ?? 'no reason recorded'}, since {when(e.disabledAt)}
                    </Text>
                  ) : e.failingSince ? (
                    <Text size="sm">failing since {when(e.failingSince)}</Text>
                  ) : (
                    <Text size="sm" c="dimmed">
                      healthy
                    </Text>
                  )}
                </Table.Td>
                <Table.Td>{e.held}</Table.Td>
                <Table.Td>
                  {e.history.length === 0 ? (
                    <Text size="sm" c="dimmed">
                      none
                    </Text>
                  ) : (
                    <List size="xs">
                      {e.history.slice(0, 5).map((h, i) => (
                        <List.Item key={i}>
                          {when(h.createdAt)}: {h.kind} ({h.reason})
                        </List.Item>
                      ))}
                    </List>
                  )}
                </Table.Td>
                <Table.Td>
                  {mayEnable && e.status === 'disabled' ? (
                    <Button
                      size="xs"
                      loading={busy === e.mode}
                      onClick={() => void enable(e.mode)}
                      aria-label={`Enable ${e.mode} endpoint`}
                    >
                      Enable endpoint
                    </Button>
                  ) : (
                    <Text size="sm" c="dimmed">
                      —
                    </Text>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Stack>
  );
}
