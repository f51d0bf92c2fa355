import { Alert, Button, Modal, Stack, Text } from '@mantine/core';
import { type FormEvent, type ReactNode, useState } from 'react';
import type { components } from '../api/schema';
import { ErrorNotice } from './ErrorNotice';
import { Link } from './Link';

type Approval = components['schemas']['ApprovalRequestView'];

/**
 * An operator action in a dialog: its fields, one submit, the refusal in words. When the answer is
 * a maker-checker request, it says so and links to it.
 */
export function ActionDialog(props: {
  label: string;
  title: string;
  color?: string;
  children: ReactNode;
  submit: () => Promise<unknown>;
  done?: () => void;
  /**
   * Called when the dialog closes after the action was carried out, instead of `done` at once: for
   * an action that changes what the page offers (the button that opened the dialog disappears), so
   * the answer stays on the screen until the operator closes it.
   */
  closed?: () => void;
  /** what to say about the answer instead of "Done." (a maker-checker request is always said as such) */
  answer?: (result: unknown) => ReactNode;
}) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [result, setResult] = useState<unknown>();

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      setResult(await props.submit());
      props.done?.();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }

  const approval = isApproval(result) ? result : undefined;
  const close = () => {
    setOpen(false);
    if (result !== undefined) props.closed?.();
  };
  return (
    <>
      <Button variant="light" color={props.color} onClick={() => (setOpen(true), setResult(undefined), setError(undefined))}>
        {props.label}
      </Button>
      <Modal opened={open} onClose={close} title={props.title}>
        {result !== undefined ? (
          <Stack>
            {approval ? (
              <SubmittedApproval approval={approval} />
            ) : (
              <Alert color="green" data-testid="action-done">
                {props.answer ? props.answer(result) : 'Done.'}
              </Alert>
            )}
            <Button onClick={close}>Close</Button>
          </Stack>
        ) : (
          <form onSubmit={onSubmit} aria-label={props.title}>
            <Stack>
              <ErrorNotice error={error} />
              {props.children}
              <Button type="submit" loading={busy} color={props.color}>
                Submit
              </Button>
            </Stack>
          </form>
        )}
      </Modal>
    </>
  );
}

export function isApproval(value: unknown): value is Approval {
  return Boolean(value && typeof value === 'object' && 'action' in value && 'status' in value && 'maker' in value);
}

export function SubmittedApproval({ approval }: { approval: Approval }) {
  return (
    <Alert
      color={approval.status === 'PENDING' ? 'yellow' : approval.status === 'EXECUTED' ? 'green' : 'red'}
      data-testid="submitted-approval"
    >
      <Text size="sm">
        {approval.status === 'PENDING'
          ? 'Submitted: another person must approve it before it is carried out.'
          : approval.status === 'EXECUTED'
            ? 'Carried out (this action needs no second person).'
            : `Status: ${approval.status}${approval.failure ? ` (${approval.failure.code}: ${approval.failure.message})` : ''}`}
      </Text>
      <Link to={`/approvals/${approval.id}`} testId="approval-link">
        Open the request
      </Link>
    </Alert>
  );
}
