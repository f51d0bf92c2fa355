import { Alert, Button, Code, Group, Stack, TextInput } from '@mantine/core';
import { type FormEvent, type ReactNode, useState } from 'react';
import { ErrorNotice } from '../../ui/ErrorNotice';

/**
 * Collects what an approved request left waiting for the person who asked (a new API key, a new
 * signing secret): the approved request id, one button, the refusal in words, and the value shown
 * once with a line about it. The id may be held by the caller (`approvalId`/`onApprovalId`) so a row
 * of a request list can fill it in; otherwise the form keeps it.
 */
export function CollectOnce<T>(props: {
  /** The form's accessible name. */
  label: string;
  /** The id field's label and description. */
  idLabel: string;
  idDescription: string;
  /** The submit button's text. */
  button: string;
  /** The title of the refusal. */
  errorTitle: string;
  /** The title, test id, and content of the box that shows the collected value. */
  resultTitle: string;
  resultTestId: string;
  describe: (collected: T) => ReactNode;
  secret: (collected: T) => string;
  collect: (approvalId: string) => Promise<T>;
  /** Hide the value collected before as soon as another collection is tried (it is not shown again). */
  hideOnRetry?: boolean;
  approvalId?: string;
  onApprovalId?: (id: string) => void;
}) {
  const [ownId, setOwnId] = useState('');
  const approvalId = props.approvalId ?? ownId;
  const setApprovalId = props.onApprovalId ?? setOwnId;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [collected, setCollected] = useState<T>();

  async function collect(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    if (props.hideOnRetry) setCollected(undefined);
    try {
      setCollected(await props.collect(approvalId.trim()));
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={collect} aria-label={props.label}>
      <Stack maw={560} gap="xs">
        <ErrorNotice error={error} title={props.errorTitle} />
        {collected && (
          <Alert color="green" title={props.resultTitle} data-testid={props.resultTestId}>
            {props.describe(collected)}
            <Code block>{props.secret(collected)}</Code>
          </Alert>
        )}
        <Group align="end">
          <TextInput
            label={props.idLabel}
            description={props.idDescription}
            value={approvalId}
            onChange={(e) => setApprovalId(e.currentTarget.value)}
            style={{ flex: 1 }}
          />
          <Button type="submit" variant="default" loading={busy} disabled={!approvalId.trim()}>
            {props.button}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
