import { Alert, Badge, Button, Group, Select, SimpleGrid, Stack, Table, Text, Textarea, Title } from '@mantine/core';
import { type ChangeEvent, type FormEvent, useState } from 'react';
import { api, ok } from '../../api/client';
import type { paths } from '../../api/schema';
import { navigate } from '../../router';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { Link } from '../../ui/Link';
import { SimpleTable } from '../../ui/SimpleTable';
import { money, when } from '../../ui/format';
import { useLoad } from '../../ui/useLoad';
import type { ScreenProps } from '../registry';
import { AlertActions, AlertStatus } from './AlertActions';
import { ALERT_STATUS_LABELS, type ReconAlert, type Run, type Statement, alertKind, evidenceText, signed } from './labels';

type Format = 'CAMT053' | 'CSV';
type AlertStatusFilter = NonNullable<paths['/api/v1/compliance/reconciliation/alerts']['get']['parameters']['query']>['status'];

/**
 * Float reconciliation (docs/reconciliation.md): the trust bank account's statements imported here
 * (camt.053 or CSV), each reconciled with the ledger's float movements and with the e-money in
 * circulation, and the alerts a difference opens, acknowledged then resolved.
 */
export function Reconciliation(_props: ScreenProps) {
  const [version, setVersion] = useState(0);
  const refresh = () => setVersion((v) => v + 1);
  return (
    <Stack>
      <ImportStatement imported={refresh} />
      <Statements version={version} />
      <Runs version={version} />
      <Alerts version={version} changed={refresh} />
    </Stack>
  );
}

function ImportStatement({ imported }: { imported: () => void }) {
  const [format, setFormat] = useState<Format>('CAMT053');
  const [content, setContent] = useState('');
  const [fileName, setFileName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [statement, setStatement] = useState<Statement>();

  async function pick(event: ChangeEvent<HTMLInputElement>) {
    const file = event.currentTarget.files?.[0];
    if (!file) return;
    setFileName(file.name);
    setContent(await file.text());
    if (/\.csv$/i.test(file.name)) setFormat('CSV');
    else if (/\.xml$/i.test(file.name)) setFormat('CAMT053');
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    setStatement(undefined);
    try {
      setStatement(await ok(api.POST('/api/v1/compliance/reconciliation/statements', { body: { format, content } })));
      setContent('');
      setFileName('');
      imported();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={submit} aria-label="Import a bank statement">
      <Stack gap="xs">
        <Title order={2} size="h4">
          Import a bank statement
        </Title>
        <Text size="sm">
          The trust account&apos;s statement as the bank delivered it: ISO 20022 camt.053 XML or the platform&apos;s CSV. A statement must
          open with the closing balance of the one before it; the same statement twice is refused and changes nothing.
        </Text>
        <ErrorNotice error={error} />
        {statement && <Imported statement={statement} />}
        <SimpleGrid cols={{ base: 1, md: 3 }}>
          <Select
            label="Format"
            allowDeselect={false}
            value={format}
            onChange={(v) => v && setFormat(v as Format)}
            data={[
              { value: 'CAMT053', label: 'camt.053 (XML)' },
              { value: 'CSV', label: 'CSV' },
            ]}
          />
          <div>
            <label htmlFor="statement-file" style={{ fontSize: 14, fontWeight: 500 }}>
              Statement file
            </label>
            <input
              id="statement-file"
              type="file"
              accept=".xml,.csv,.txt,text/xml,text/csv"
              onChange={(e) => void pick(e)}
              style={{ display: 'block', marginTop: 6 }}
            />
            {fileName && (
              <Text size="xs" c="dimmed">
                {fileName}, {content.length} characters
              </Text>
            )}
          </div>
        </SimpleGrid>
        <Textarea
          label="Or paste the statement"
          value={content}
          onChange={(e) => setContent(e.currentTarget.value)}
          autosize
          minRows={3}
          maxRows={10}
          styles={{ input: { fontFamily: 'monospace', fontSize: 12 } }}
        />
        <Group>
          <Button type="submit" loading={busy} disabled={!content.trim()}>
            Import the statement
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** What was imported, and the next step: reconcile it. */
function Imported({ statement }: { statement: Statement }) {
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  async function reconcile() {
    setBusy(true);
    try {
      const run = await ok(api.POST('/api/v1/compliance/reconciliation/runs', { body: { statementId: statement.id } }));
      navigate(`/compliance/reconciliation/runs/${run.id}`);
    } catch (failure) {
      setError(failure);
      setBusy(false);
    }
  }
  return (
    <Alert color="green" role="status" title="Statement imported" data-testid="statement-imported">
      <Text size="sm">
        {statement.statementRef} of account {statement.account}: {statement.lineCount} lines, from{' '}
        {money(statement.openingBalance, statement.currency)} on {statement.openingDate} to{' '}
        {money(statement.closingBalance, statement.currency)} on {statement.closingDate}.
      </Text>
      <ErrorNotice error={error} />
      <Button mt="xs" size="xs" onClick={() => void reconcile()} loading={busy}>
        Reconcile it now
      </Button>
    </Alert>
  );
}

function Statements({ version }: { version: number }) {
  const { data, error } = useLoad(
    () => ok(api.GET('/api/v1/compliance/reconciliation/statements', { params: { query: { limit: 50 } } })),
    [version],
  );
  const [runError, setRunError] = useState<unknown>();
  async function reconcile(statementId: string) {
    setRunError(undefined);
    try {
      const run = await ok(api.POST('/api/v1/compliance/reconciliation/runs', { body: { statementId } }));
      navigate(`/compliance/reconciliation/runs/${run.id}`);
    } catch (failure) {
      setRunError(failure);
    }
  }
  return (
    <Stack gap="xs">
      <Title order={2} size="h4">
        Statements
      </Title>
      <ErrorNotice error={error ?? runError} />
      <SimpleTable
        rows={data ?? []}
        caption="Imported statements, newest first (the latest 50)"
        testId="statements-table"
        columns={[
          { label: 'Statement', cell: (s) => s.statementRef },
          { label: 'Account', cell: (s) => `${s.account} (${s.currency})` },
          { label: 'Opening', cell: (s) => `${money(s.openingBalance, s.currency)} · ${s.openingDate}` },
          { label: 'Closing', cell: (s) => `${money(s.closingBalance, s.currency)} · ${s.closingDate}` },
          { label: 'Lines', cell: (s) => s.lineCount },
          { label: 'Imported', cell: (s) => `${when(s.importedAt)} (${s.format})` },
          {
            label: 'Reconcile',
            cell: (s) => (
              <Button size="xs" variant="default" onClick={() => void reconcile(s.id)} aria-label={`Reconcile ${s.statementRef}`}>
                Reconcile
              </Button>
            ),
          },
        ]}
      />
    </Stack>
  );
}

export function RunStatus({ run }: { run: Pick<Run, 'status'> }) {
  return (
    <Badge color={run.status === 'BALANCED' ? 'green' : 'red'} data-testid="run-status">
      {run.status === 'BALANCED' ? 'balanced' : 'differences'}
    </Badge>
  );
}

function Runs({ version }: { version: number }) {
  const { data, error } = useLoad(
    () => ok(api.GET('/api/v1/compliance/reconciliation/runs', { params: { query: { limit: 50 } } })),
    [version],
  );
  return (
    <Stack gap="xs">
      <Title order={2} size="h4">
        Runs
      </Title>
      <ErrorNotice error={error} />
      <SimpleTable
        rows={data ?? []}
        caption="Reconciliation runs, newest first (the latest 50)"
        testId="runs-table"
        columns={[
          { label: 'Day', cell: (r) => <Link to={`/compliance/reconciliation/runs/${r.id}`}>{`${r.businessDate} ${r.currency}`}</Link> },
          { label: 'Result', cell: (r) => <RunStatus run={r} /> },
          { label: 'Bank closing', cell: (r) => money(r.bankClosing, r.currency) },
          { label: 'In circulation', cell: (r) => money(r.circulation, r.currency) },
          { label: 'Difference', cell: (r) => signed(r.difference, r.currency) },
          { label: 'Matched', cell: (r) => r.matchedCount },
          { label: 'Unmatched (bank / platform)', cell: (r) => `${r.unmatchedBankCount} / ${r.unmatchedLedgerCount}` },
          { label: 'Run', cell: (r) => when(r.createdAt) },
        ]}
      />
    </Stack>
  );
}

export function AlertsTable({ alerts, changed }: { alerts: ReconAlert[]; changed: () => void }) {
  return (
    <Table.ScrollContainer minWidth={700}>
      <Table striped withTableBorder data-testid="recon-alerts-table">
        <Table.Caption>Reconciliation alerts, newest first</Table.Caption>
        <Table.Thead>
          <Table.Tr>
            {['Raised', 'What', 'Amount', 'Evidence', 'Status', 'Next step'].map((label) => (
              <Table.Th key={label} scope="col">
                {label}
              </Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {alerts.map((a) => (
            <Table.Tr key={a.id} data-testid={`recon-alert-${a.kind}`}>
              <Table.Td>
                <Link to={`/compliance/reconciliation/runs/${a.runId}`}>{when(a.createdAt)}</Link>
              </Table.Td>
              <Table.Td>{alertKind(a.kind)}</Table.Td>
              <Table.Td>{a.kind === 'BALANCE_GAP' ? signed(a.amount, a.currency) : money(a.amount, a.currency)}</Table.Td>
              <Table.Td>
                <Text size="sm">{evidenceText(a)}</Text>
              </Table.Td>
              <Table.Td>
                <AlertStatus alert={a} />
              </Table.Td>
              <Table.Td>
                <AlertActions alert={a} done={changed} />
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {alerts.length === 0 && <Text c="dimmed">No alert.</Text>}
    </Table.ScrollContainer>
  );
}

function Alerts({ version, changed }: { version: number; changed: () => void }) {
  const [status, setStatus] = useState('');
  const { data, error } = useLoad(
    () =>
      ok(
        api.GET('/api/v1/compliance/reconciliation/alerts', {
          params: { query: { status: (status || undefined) as AlertStatusFilter, limit: 100 } },
        }),
      ),
    [version, status],
  );
  return (
    <Stack gap="xs">
      <Group align="end">
        <Title order={2} size="h4">
          Alerts
        </Title>
        <Select
          label="Status"
          value={status}
          onChange={(v) => setStatus(v ?? '')}
          data={[{ value: '', label: 'Any status' }, ...Object.entries(ALERT_STATUS_LABELS).map(([value, label]) => ({ value, label }))]}
          allowDeselect={false}
        />
      </Group>
      <ErrorNotice error={error} />
      <AlertsTable alerts={data ?? []} changed={changed} />
    </Stack>
  );
}
