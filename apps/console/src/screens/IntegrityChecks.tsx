import { Badge, Button, Group, Stack, Text } from '@mantine/core';
import { useCallback, useEffect, useState } from 'react';
import { api, ok } from '../api/client';
import type { components } from '../api/schema';
import { can, useSession } from '../session/session';
import { ErrorNotice } from '../ui/ErrorNotice';
import { RecordsTable, type TextColumn } from '../ui/RecordsTable';
import { toCsv, downloadCsv } from '../ui/csv';
import { when } from '../ui/format';
import { LedgerChain } from './chain/LedgerChain';

type Check = components['schemas']['IntegrityCheckRecordView'];

export function IntegrityStatus({ check }: { check: Pick<Check, 'status' | 'gapCount'> | undefined }) {
  if (!check) return <Badge color="gray">never run</Badge>;
  const clean = check.status === 'OK';
  return (
    <Badge color={clean ? 'green' : 'red'} data-testid="integrity-status">
      {check.status} · {check.gapCount} gap{check.gapCount === 1 ? '' : 's'}
    </Badge>
  );
}

const COLUMNS: TextColumn<Check>[] = [
  { label: 'Started', text: (c) => when(c.startedAt) },
  { label: 'Trigger', text: (c) => c.trigger },
  { label: 'Status', text: (c) => c.status },
  { label: 'Accounts checked', text: (c) => String(c.accountsChecked) },
  { label: 'Gaps', text: (c) => String(c.gapCount) },
  { label: 'Requested by', text: (c) => c.requestedBy },
];

/**
 * The ledger's integrity checks (every account's entries against its balance): the last runs, and a
 * new run; below, the verifications of the ledger's hash chain.
 */
export function IntegrityChecks() {
  const session = useSession();
  const [checks, setChecks] = useState<Check[]>([]);
  const [error, setError] = useState<unknown>();
  const [running, setRunning] = useState(false);

  const load = useCallback(async () => {
    try {
      setChecks(await ok(api.GET('/api/v1/compliance/integrity-checks', { params: { query: { limit: 50 } } })));
    } catch (failure) {
      setError(failure);
    }
  }, []);
  useEffect(() => void load(), [load]);

  async function run() {
    setRunning(true);
    setError(undefined);
    try {
      await ok(api.POST('/api/v1/compliance/integrity-checks'));
      await load();
    } catch (failure) {
      setError(failure);
    } finally {
      setRunning(false);
    }
  }

  return (
    <Stack>
      <ErrorNotice error={error} />
      <Group>
        <Text>Latest:</Text>
        <IntegrityStatus check={checks[0]} />
        {can(session, 'compliance.integrity') && (
          <Button onClick={() => void run()} loading={running}>
            Run a check now
          </Button>
        )}
        <Button
          variant="default"
          disabled={checks.length === 0}
          onClick={() => downloadCsv('integrity-checks.csv', toCsv(COLUMNS, checks))}
        >
          Export CSV
        </Button>
      </Group>
      <RecordsTable rows={checks} columns={COLUMNS} caption="The last 50 integrity checks, newest first" testId="integrity-checks-table" />
      <LedgerChain />
    </Stack>
  );
}
