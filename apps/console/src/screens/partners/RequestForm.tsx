import { Button, Group, Stack, Text, Textarea } from '@mantine/core';
import type { FormEvent, ReactNode } from 'react';
import { ErrorNotice } from '../../ui/ErrorNotice';

/**
 * The form that asks for a maker-checker request on an integration: an optional heading, what will
 * happen, the refusal in words, the action's own fields, the required reason, then submit or cancel.
 * The caller keeps the state and sends the request.
 */
export function RequestForm(props: {
  /** The form's accessible name. */
  label: string;
  heading?: string;
  note: string;
  error: unknown;
  children?: ReactNode;
  reason: string;
  onReason: (reason: string) => void;
  reasonDescription: string;
  busy: boolean;
  submitColor?: string;
  onSubmit: (event: FormEvent) => void;
  onCancel: () => void;
}) {
  return (
    <form onSubmit={props.onSubmit} aria-label={props.label}>
      <Stack maw={560} gap="xs" p="sm" style={{ border: '1px solid var(--mantine-color-gray-3)', borderRadius: 4 }}>
        {props.heading && <Text fw={600}>{props.heading}</Text>}
        <Text size="sm" c="dimmed">
          {props.note}
        </Text>
        <ErrorNotice error={props.error} />
        {props.children}
        <Textarea
          label="Reason"
          description={props.reasonDescription}
          required
          value={props.reason}
          onChange={(e) => props.onReason(e.currentTarget.value)}
          autosize
          minRows={2}
        />
        <Group>
          <Button type="submit" loading={props.busy} color={props.submitColor}>
            Submit for approval
          </Button>
          <Button variant="default" onClick={props.onCancel}>
            Cancel
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
