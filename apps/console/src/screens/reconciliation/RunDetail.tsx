import { Button, Group, SimpleGrid, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { api, ok } from '../../api/client';
import { FactsTable } from '../../ui/FactsTable';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { Link } from '../../ui/Link';
import { Part } from '../../ui/Part';
import { SimpleTable } from '../../ui/SimpleTable';
import { saveCsv, textOf } from '../../ui/documents';
import { money, when } from '../../ui/format';
import { useLoad } from '../../ui/useLoad';
import type { ScreenProps } from '../registry';
import { AlertsTable, RunStatus } from './Reconciliation';
import { MATCH_RULE_LABELS, type Movement, bankLineText, signed } from './labels';

/**
 * One reconciliation run: the bank's closing balance against the e-money in circulation at the end
 * of its day (and the platform accounts that make up the circulation), what matched by which rule,
 * what did not on either side, and the alerts it opened with their next step.
 */
export function RunDetail({ params }: ScreenProps) {
  const path = { path: { runId: params.runId } };
  const {
    data: report,
    error,
    reload,
  } = useLoad(() => ok(api.GET('/api/v1/compliance/reconciliation/runs/{runId}/report', { params: path })), [params.runId]);
  const [csvError, setCsvError] = useState<unknown>();

  async function csv() {
    setCsvError(undefined);
    try {
      await saveCsv(`reconciliation-${params.runId}.csv`, () =>
        textOf(
          api.GET('/api/v1/compliance/reconciliation/runs/{runId}/report', {
            params: { ...path, query: { format: 'csv' } },
            parseAs: 'text',
          }),
        ),
      );
    } catch (failure) {
      setCsvError(failure);
    }
  }

  if (error) return <ErrorNotice error={error} />;
  if (!report) return <Text aria-live="polite">Loading…</Text>;
  const { run, statement } = report;
  const c = run.currency;
  const movement = (m: Movement) => (
    <>
      <Link to={`/payments/${encodeURIComponent(m.referenceId)}`}>{m.referenceId}</Link> {m.direction} {money(m.amount, c)} ({m.accountType}
      )
    </>
  );
  return (
    <Stack data-testid="recon-run">
      <Group>
        <Text fw={700} size="lg">
          {statement.statementRef} · {run.businessDate} · {c}
        </Text>
        <RunStatus run={run} />
        <Button variant="default" size="xs" onClick={() => void csv()}>
          Download the report (CSV)
        </Button>
        <Link to="/compliance/reconciliation">All statements, runs and alerts</Link>
      </Group>
      <ErrorNotice error={csvError} title="The CSV could not be downloaded" />
      <SimpleGrid cols={{ base: 1, lg: 2 }}>
        <Part title="Bank against circulation">
          <FactsTable
            testId="recon-balances"
            facts={[
              ['Bank closing balance', money(run.bankClosing, c), 'recon-bank-closing'],
              [`E-money in circulation at ${when(run.circulationDetail.cutoff)}`, money(run.circulation, c), 'recon-circulation'],
              ['Difference (bank − circulation)', signed(run.difference, c), 'recon-difference'],
              ['Matched', String(run.matchedCount), 'recon-matched'],
              ['Unmatched bank lines', String(run.unmatchedBankCount), 'recon-unmatched-bank'],
              ['Unmatched platform movements', String(run.unmatchedLedgerCount), 'recon-unmatched-ledger'],
              ['Date tolerance', `${run.toleranceDays} days`, 'recon-tolerance'],
              ['Run', `${when(run.createdAt)} by ${run.runBy}`, 'recon-run-by'],
            ]}
          />
        </Part>
        <Part title="Platform accounts behind the circulation">
          <SimpleTable
            rows={Object.entries(run.circulationDetail.platformAccounts)}
            caption="Each platform account's balance at the cutoff; the circulation is minus their sum"
            columns={[
              { label: 'Account', cell: ([type]) => type },
              { label: 'Balance', cell: ([, balance]) => signed(balance, c) },
            ]}
          />
        </Part>
      </SimpleGrid>
      <Part title="Alerts">
        <AlertsTable alerts={report.alerts} changed={() => void reload()} />
      </Part>
      <Part title="Unmatched">
        <SimpleTable
          rows={report.unmatchedBankLines}
          caption="Bank lines with no platform movement"
          testId="unmatched-bank-lines"
          columns={[{ label: 'Bank line', cell: (l) => bankLineText(l, c) }]}
        />
        <SimpleTable
          rows={report.unmatchedMovements}
          caption="Platform movements the bank does not show"
          testId="unmatched-movements"
          columns={[
            { label: 'Movement', cell: movement },
            { label: 'When', cell: (m) => when(m.completedAt) },
          ]}
        />
      </Part>
      <Part title="Matched">
        <SimpleTable
          rows={report.matches}
          caption="Bank lines and platform movements paired, with the rule that paired them"
          testId="matches"
          columns={[
            { label: 'Rule', cell: (m) => MATCH_RULE_LABELS[m.rule] ?? m.rule },
            { label: 'Bank', cell: (m) => m.bankLines.map((l) => bankLineText(l, c)).join('; ') || '—' },
            {
              label: 'Platform',
              cell: (m) => (
                <Stack gap={0}>
                  {m.movements.map((x) => (
                    <span key={x.transactionId}>{movement(x)}</span>
                  ))}
                </Stack>
              ),
            },
          ]}
        />
      </Part>
      {report.resolutionCorrections.length > 0 && (
        <Part title="Corrections that resolved alerts">
          <SimpleTable
            rows={report.resolutionCorrections}
            caption="Ledger corrections named by the resolutions"
            columns={[
              { label: 'Movement', cell: movement },
              { label: 'When', cell: (m) => when(m.completedAt) },
            ]}
          />
        </Part>
      )}
    </Stack>
  );
}
