import { Alert, Button, Group, Stack, Table, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { api, ok } from '../../api/client';
import type { components } from '../../api/schema';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { RecordsTable, type TextColumn } from '../../ui/RecordsTable';
import { SimpleTable } from '../../ui/SimpleTable';
import { Link } from '../../ui/Link';
import { downloadCsv, toCsv } from '../../ui/csv';
import { when } from '../../ui/format';
import { useLoad } from '../../ui/useLoad';

type Verification = components['schemas']['LedgerChainVerificationRecordView'];
type Break = components['schemas']['LedgerChainBreakView'];

/**
 * What the usual kinds of broken link mean, in words (docs/ledger-chain.md tells how they are told
 * apart); any other kind the ledger names is shown with its own description (`detail`).
 */
const BREAK_LABELS: Partial<Record<Break['kind'], string>> = {
  EDITED: 'an entry was changed after it was written',
  INSERTED: 'an entry was added outside the ledger’s own writers',
  DELETED: 'an entry was removed',
  ANCHOR_MISMATCH: 'the chain no longer matches the last signed anchor (hashes recomputed after an edit?)',
};

const COLUMNS: TextColumn<Verification>[] = [
  { label: 'Started', text: (v) => when(v.startedAt) },
  { label: 'Trigger', text: (v) => (v.trigger === 'SCHEDULED' ? 'nightly check' : 'on demand') },
  { label: 'Status', text: (v) => v.status },
  { label: 'Accounts', text: (v) => String(v.accountsChecked) },
  { label: 'Entries', text: (v) => String(v.entriesChecked) },
  { label: 'Broken accounts', text: (v) => String(v.brokenAccounts) },
  {
    label: 'First break',
    text: (v) => (v.firstBreak ? `${v.firstBreak.kind} ${v.firstBreak.referenceId ?? v.firstBreak.entryId ?? ''}` : ''),
  },
  { label: 'Anchor', text: (v) => (v.anchor.n === null ? v.anchor.status : `${v.anchor.status} (#${v.anchor.n})`) },
  { label: 'Requested by', text: (v) => `${v.requestedBy}${v.requestedByRoles.length ? ` (${v.requestedByRoles.join(', ')})` : ''}` },
];

const hash = (value: string) => (
  <Text span ff="monospace" size="xs" title={value}>
    {value.slice(0, 16)}…
  </Text>
);

/**
 * The ledger's hash chain (docs/ledger-chain.md): every entry is chained to the one before it on its
 * account, and anchors signed with a key the database does not hold seal the heads. "Verify the
 * ledger chain" walks it all and names the first broken link; the list shows the past runs, the
 * nightly ones included.
 */
export function LedgerChain() {
  const { data, error, reload } = useLoad(
    () => ok(api.GET('/api/v1/compliance/ledger-chain/verifications', { params: { query: { limit: 20 } } })),
    [],
  );
  const [result, setResult] = useState<components['schemas']['LedgerChainVerificationView']>();
  const [running, setRunning] = useState(false);
  const [runError, setRunError] = useState<unknown>();
  const runs = data ?? [];

  async function verify() {
    setRunning(true);
    setRunError(undefined);
    setResult(undefined);
    try {
      setResult(await ok(api.POST('/api/v1/compliance/ledger-chain/verifications')));
      await reload();
    } catch (failure) {
      setRunError(failure);
    } finally {
      setRunning(false);
    }
  }

  return (
    <Stack component="section" aria-labelledby="ledger-chain-title" gap="xs">
      <Title order={2} size="h4" id="ledger-chain-title">
        Ledger hash chain
      </Title>
      <Group>
        <Button onClick={() => void verify()} loading={running}>
          Verify the ledger chain
        </Button>
        <Button
          variant="default"
          disabled={runs.length === 0}
          onClick={() => downloadCsv('ledger-chain-verifications.csv', toCsv(COLUMNS, runs))}
        >
          Export CSV
        </Button>
        <Text size="sm" c="dimmed">
          Reads every entry of the ledger: expect a few seconds.
        </Text>
      </Group>
      <ErrorNotice error={runError} title="The verification could not run" />
      {result &&
        (result.status === 'INTACT' ? (
          <Alert color="green" title="The ledger chain is intact" role="status" data-testid="ledger-chain-intact">
            {result.entriesChecked} entries on {result.accountsChecked} accounts recomputed, every link sound;{' '}
            {result.anchor.status === 'VERIFIED'
              ? `the last signed anchor (#${result.anchor.n}, ${when(result.anchor.at)}) matches.`
              : 'no signed anchor yet.'}
          </Alert>
        ) : (
          <ChainBroken verification={result} />
        ))}
      <ErrorNotice error={error} />
      <RecordsTable
        rows={runs}
        columns={COLUMNS}
        caption="The last 20 chain verifications, newest first"
        testId="ledger-chain-table"
        cell={(c, run) =>
          c.label === 'Status' ? (
            <Text size="sm" fw={700} c={run.status === 'INTACT' ? 'green.8' : 'red.8'}>
              {run.status}
            </Text>
          ) : (
            c.text(run)
          )
        }
      />
    </Stack>
  );
}

/** A broken chain: the first broken link, named so that someone can go and look at it. */
function ChainBroken({
  verification,
}: {
  verification: Pick<Verification, 'firstBreak' | 'breaks' | 'brokenAccounts' | 'entriesChecked'>;
}) {
  const b = verification.firstBreak;
  return (
    <Alert color="red" title="The ledger chain is broken" role="alert" data-testid="ledger-chain-broken">
      {b ? (
        <Stack gap={4}>
          <Text size="sm">
            First broken link:{' '}
            <Text span fw={700} ff="monospace" data-testid="ledger-chain-break-kind">
              {b.kind}
            </Text>{' '}
            — {BREAK_LABELS[b.kind] ? `${BREAK_LABELS[b.kind]} (${b.detail})` : b.detail}.
          </Text>
          <Table withTableBorder variant="vertical" maw={900} data-testid="ledger-chain-break">
            <Table.Tbody>
              <Table.Tr>
                <Table.Th scope="row">Transaction</Table.Th>
                <Table.Td data-testid="ledger-chain-break-reference">
                  {b.referenceId ? <Link to={`/payments/${encodeURIComponent(b.referenceId)}`}>{b.referenceId}</Link> : '—'}
                  {b.transactionId ? ` (${b.transactionId})` : ''}
                </Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th scope="row">Account</Table.Th>
                <Table.Td>
                  {b.accountId ? (
                    <Link to={`/people?q=${encodeURIComponent(b.accountId)}`}>{b.accountId}</Link>
                  ) : (
                    '— (the anchors’ own records)'
                  )}
                </Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th scope="row">Entry</Table.Th>
                <Table.Td>
                  {b.entryId ?? '—'}
                  {b.chainSeq !== null ? ` (link ${b.chainSeq} of the account’s chain)` : ''}
                </Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th scope="row">Expected</Table.Th>
                <Table.Td>{hash(b.expected)}</Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th scope="row">Found</Table.Th>
                <Table.Td>{hash(b.found)}</Table.Td>
              </Table.Tr>
            </Table.Tbody>
          </Table>
          {verification.breaks.length > 1 && (
            <SimpleTable
              rows={verification.breaks.slice(1)}
              caption="The other broken accounts, each at its earliest break, earliest first"
              testId="ledger-chain-other-breaks"
              columns={[
                { label: 'Kind', cell: (x) => x.kind },
                {
                  label: 'Transaction',
                  cell: (x) => (x.referenceId ? <Link to={`/payments/${encodeURIComponent(x.referenceId)}`}>{x.referenceId}</Link> : '—'),
                },
                { label: 'Account', cell: (x) => x.accountId ?? '—' },
                { label: 'Link', cell: (x) => x.chainSeq ?? '—' },
                { label: 'What', cell: (x) => x.detail },
              ]}
            />
          )}
          <Text size="sm">
            {verification.brokenAccounts} account{verification.brokenAccounts === 1 ? '' : 's'} with a broken link among{' '}
            {verification.entriesChecked} entries checked. Treat the ledger as tampered with: see docs/ledger-chain.md.
          </Text>
        </Stack>
      ) : (
        'A link is broken.'
      )}
    </Alert>
  );
}
