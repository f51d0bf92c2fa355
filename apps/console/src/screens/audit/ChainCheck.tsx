import { Alert, Button, Checkbox, Group, NumberInput, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { api, ok } from '../../api/client';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { when } from '../../ui/format';
import { type ChainCheck as Check, PROBLEM_LABELS } from './labels';

/**
 * "Verify chain": checks every signed anchor, then walks the whole trail (the backend's default), or
 * from a chosen record, or — the quick check — only the records after the last anchor, and says
 * whether the chain is intact, or names the first record deleted or altered and why.
 */
export function ChainCheck() {
  const [quick, setQuick] = useState(false);
  const [fromSeq, setFromSeq] = useState<number | string>('');
  const [check, setCheck] = useState<Check>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();

  async function verify() {
    setBusy(true);
    setError(undefined);
    setCheck(undefined);
    try {
      const query = quick ? { full: 'false' as const } : fromSeq !== '' ? { fromSeq: String(fromSeq) } : {};
      setCheck(await ok(api.GET('/api/backoffice/audit-trail/verify', { params: { query } })));
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }

  const walked = (c: Check) =>
    c.from === null ? 'no record walked' : `${c.checked} record${c.checked === 1 ? '' : 's'} walked from #${c.from}`;
  const anchors = (c: Check) =>
    `${c.anchors.checked} signed anchor${c.anchors.checked === 1 ? '' : 's'} sound${
      c.anchors.last ? ` (last: #${c.anchors.last.n} at record ${c.anchors.last.seq}, ${when(c.anchors.last.at)})` : ''
    }`;

  return (
    <Stack gap="xs">
      <Group align="end">
        <Button onClick={() => void verify()} loading={busy}>
          Verify chain
        </Button>
        <Checkbox
          label="Quick check: only the records after the last signed anchor"
          checked={quick}
          onChange={(e) => setQuick(e.currentTarget.checked)}
          mb={8}
        />
        <NumberInput
          label="Or walk from record #"
          description="Empty: the whole trail"
          min={1}
          allowDecimal={false}
          value={fromSeq}
          onChange={setFromSeq}
          disabled={quick}
          w={200}
        />
      </Group>
      <ErrorNotice error={error} title="The check could not run" />
      {check &&
        (check.intact ? (
          <Alert color="green" title="The chain is intact" role="status" data-testid="chain-intact">
            {walked(check)} up to the head, record {check.head.seq} (hash{' '}
            <Text span ff="monospace" size="xs">
              {check.head.hash.slice(0, 16)}…
            </Text>
            ); {anchors(check)}.{check.anchored ? ` The head is now anchored (#${check.anchored.n}).` : ''}
          </Alert>
        ) : (
          <Alert color="red" title="The chain is broken" role="alert" data-testid="chain-broken">
            {check.firstBroken ? (
              <>
                First broken record: <strong data-testid="chain-broken-seq">#{check.firstBroken.seq}</strong> —{' '}
                <Text span ff="monospace" fw={700}>
                  {check.firstBroken.problem}
                </Text>
                : {PROBLEM_LABELS[check.firstBroken.problem]}
                {check.firstBroken.anchor !== null ? ` (found by anchor #${check.firstBroken.anchor})` : ''}.
              </>
            ) : (
              'A record is missing or altered.'
            )}{' '}
            {walked(check)} before it; the head counts {check.head.seq}; {anchors(check)}.
          </Alert>
        ))}
    </Stack>
  );
}
