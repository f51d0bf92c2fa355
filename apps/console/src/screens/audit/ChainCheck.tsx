import { Alert, Button, Group, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { api, ok } from '../../api/client';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { type ChainCheck as Check, PROBLEM_LABELS } from './labels';

/** "Verify chain": walks the whole trail and says whether it is intact, or names the first record deleted or altered. */
export function ChainCheck() {
  const [check, setCheck] = useState<Check>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();

  async function verify() {
    setBusy(true);
    setError(undefined);
    setCheck(undefined);
    try {
      setCheck(await ok(api.GET('/api/backoffice/audit-trail/verify')));
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Stack gap="xs">
      <Group>
        <Button onClick={() => void verify()} loading={busy}>
          Verify chain
        </Button>
        <Text size="sm" c="dimmed">
          Checks every record: none missing, each linked to the one before, each hash matching its content.
        </Text>
      </Group>
      <ErrorNotice error={error} title="The check could not run" />
      {check &&
        (check.intact ? (
          <Alert color="green" title="The chain is intact" role="status" data-testid="chain-intact">
            {check.checked} record{check.checked === 1 ? '' : 's'} checked; the head is record {check.head.seq} (hash{' '}
            <Text span ff="monospace" size="xs">
              {check.head.hash.slice(0, 16)}…
            </Text>
            ).
          </Alert>
        ) : (
          <Alert color="red" title="The chain is broken" role="alert" data-testid="chain-broken">
            {check.firstBroken ? (
              <>
                First broken record: <strong data-testid="chain-broken-seq">#{check.firstBroken.seq}</strong> —{' '}
                <Text span ff="monospace" fw={700}>
                  {check.firstBroken.problem}
                </Text>
                : {PROBLEM_LABELS[check.firstBroken.problem]}.
              </>
            ) : (
              'A record is missing or altered.'
            )}{' '}
            {check.checked} record{check.checked === 1 ? '' : 's'} checked before it; the head counts {check.head.seq}.
          </Alert>
        ))}
    </Stack>
  );
}
