import { Card, List, SimpleGrid, Text, Title } from '@mantine/core';
import { type ReactNode, useEffect, useState } from 'react';
import { api, ok } from '../api/client';
import { can, useSession } from '../session/session';
import { ErrorNotice } from '../ui/ErrorNotice';
import { Link } from '../ui/Link';
import { money } from '../ui/format';
import {
  type Counted,
  approvalsWaiting,
  casesNotClosed,
  heldWebhooks,
  reconciliationAlertsUnresolved,
  reportsOverdue,
  unfinishedWorkflows,
  volumesToday,
} from './home-figures';
import { IntegrityStatus } from './IntegrityChecks';

/** One figure, loaded on its own: a refusal or a slow route shows in its card, not on the whole page. */
function useFigure<T>(enabled: boolean, load: () => Promise<T>): { data?: T; error?: unknown } {
  const [state, setState] = useState<{ data?: T; error?: unknown }>({});
  useEffect(() => {
    if (!enabled) return;
    let live = true;
    load().then(
      (data) => live && setState({ data }),
      (error) => live && setState({ error }),
    );
    return () => {
      live = false;
    };
  }, [enabled]);
  return state;
}

function Figure(props: { id: string; title: string; error?: unknown; loading: boolean; children: ReactNode; link?: [string, string] }) {
  return (
    <Card withBorder component="section" aria-labelledby={props.id} data-testid={props.id}>
      <Title order={2} size="h4" id={props.id}>
        {props.title}
      </Title>
      <ErrorNotice error={props.error} />
      {props.loading && !props.error ? <Text c="dimmed">Loading…</Text> : props.children}
      {props.link && <Link to={props.link[0]}>{props.link[1]}</Link>}
    </Card>
  );
}

const atLeast = (counted: Counted<unknown> | undefined) => (counted?.capped ? 'at least ' : '');

/** What needs an operator today, each card from the routes that answer it, shown only to roles that may read them. */
export function Home() {
  const session = useSession();
  const volumes = useFigure(can(session, 'operations.read'), volumesToday);
  const approvals = useFigure(can(session, 'approvals.read'), approvalsWaiting);
  const integrity = useFigure(can(session, 'compliance.integrity'), () =>
    ok(api.GET('/api/v1/compliance/integrity-checks', { params: { query: { limit: 1 } } })),
  );
  const webhooks = useFigure(can(session, 'operations.read'), heldWebhooks);
  const workflows = useFigure(can(session, 'operations.read'), unfinishedWorkflows);
  const cases = useFigure(can(session, 'compliance.monitoring'), casesNotClosed);
  const overdue = useFigure(can(session, 'compliance.reports'), reportsOverdue);
  const recon = useFigure(can(session, 'compliance.reconciliation'), reconciliationAlertsUnresolved);
  const compliance = [
    can(session, 'compliance.monitoring') && {
      key: 'cases',
      figure: cases,
      to: '/compliance/cases',
      words: (n: number) => `case${n === 1 ? '' : 's'} not closed`,
    },
    can(session, 'compliance.reports') && {
      key: 'overdue',
      figure: overdue,
      to: '/compliance/reports?deadline=OVERDUE',
      words: (n: number) => `suspicion report${n === 1 ? '' : 's'} overdue for written confirmation`,
    },
    can(session, 'compliance.reconciliation') && {
      key: 'recon',
      figure: recon,
      to: '/compliance/reconciliation',
      words: (n: number) => `reconciliation alert${n === 1 ? '' : 's'} not resolved`,
    },
  ].filter((line) => line !== false);

  return (
    <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
      {can(session, 'operations.read') && (
        <Figure
          id="home-volumes"
          title="Volumes today"
          error={volumes.error}
          loading={!volumes.data}
          link={['/payments', 'Search payments']}
        >
          {volumes.data && volumes.data.value.length === 0 && <Text>No succeeded operation since midnight.</Text>}
          <List>
            {volumes.data?.value.map((v) => (
              <List.Item key={v.currency}>
                {atLeast(volumes.data)}
                {v.count} operation{v.count === 1 ? '' : 's'}, {money(v.amount, v.currency)} (fees {money(v.fees, v.currency)})
              </List.Item>
            ))}
          </List>
        </Figure>
      )}
      {can(session, 'approvals.read') && (
        <Figure
          id="home-approvals"
          title="Approvals waiting"
          error={approvals.error}
          loading={!approvals.data}
          link={['/approvals', 'Open the inbox']}
        >
          <Text size="xl" fw={700} data-testid="approvals-waiting">
            {atLeast(approvals.data)}
            {approvals.data?.value}
          </Text>
        </Figure>
      )}
      {can(session, 'compliance.integrity') && (
        <Figure
          id="home-integrity"
          title="Ledger integrity"
          error={integrity.error}
          loading={!integrity.data}
          link={['/integrity', 'All checks']}
        >
          <Text component="div" my="xs">
            <IntegrityStatus check={integrity.data?.[0]} />
          </Text>
        </Figure>
      )}
      {compliance.length > 0 && (
        <Figure
          id="home-compliance"
          title="Compliance work"
          error={compliance.find((line) => line.figure.error)?.figure.error}
          loading={compliance.some((line) => !line.figure.data && !line.figure.error)}
        >
          <List>
            {compliance.map((line) => (
              <List.Item key={line.key} data-testid={`home-compliance-${line.key}`}>
                <Link to={line.to}>
                  {atLeast(line.figure.data)}
                  {line.figure.data?.value ?? '?'} {line.words(line.figure.data?.value ?? 0)}
                </Link>
              </List.Item>
            ))}
          </List>
        </Figure>
      )}
      {can(session, 'operations.read') && (
        <Figure id="home-webhooks" title="Held webhooks" error={webhooks.error} loading={!webhooks.data}>
          {webhooks.data && webhooks.data.value.length === 0 && <Text>Every endpoint is enabled; nothing is held.</Text>}
          <List>
            {webhooks.data?.value.map((h) => (
              <List.Item key={`${h.integrationId}-${h.mode}`}>
                <Link to={`/partners/${h.integrationId}`}>{h.name}</Link> ({h.mode}): {h.status}, {h.held} held
              </List.Item>
            ))}
          </List>
        </Figure>
      )}
      {can(session, 'operations.read') && (
        <Figure
          id="home-workflows"
          title="Unfinished workflows"
          error={workflows.error}
          loading={!workflows.data}
          link={['/workflows', 'See them']}
        >
          <List>
            {Object.entries(workflows.data?.value ?? {}).map(([state, count]) => (
              <List.Item key={state}>
                {state}: {atLeast(workflows.data)}
                {count}
              </List.Item>
            ))}
          </List>
        </Figure>
      )}
    </SimpleGrid>
  );
}
