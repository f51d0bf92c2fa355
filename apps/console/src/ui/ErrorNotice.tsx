import { Alert, List, Text } from '@mantine/core';
import { ApiFailure } from '../api/client';

/** A refusal in words: the platform's stable code, its message, the faulty fields and the request id. */
export function ErrorNotice({ error, title }: { error: unknown; title?: string }) {
  if (!error) return null;
  const failure = error instanceof ApiFailure ? error : undefined;
  const message = failure?.message ?? (error instanceof Error ? error.message : String(error));
  return (
    <Alert color="red" role="alert" title={title ?? 'The request was refused'} data-testid="error-notice">
      <Text size="sm">
        {failure && (
          <Text span fw={700} ff="monospace" data-testid="error-code">
            {failure.code}
          </Text>
        )}
        {failure ? ': ' : ''}
        <span data-testid="error-message">{message}</span>
      </Text>
      {failure && failure.fieldErrors.length > 0 && (
        <List size="sm">
          {failure.fieldErrors.map((e) => (
            <List.Item key={`${e.field}-${e.code}`}>
              {e.field}: {e.code} ({e.message})
            </List.Item>
          ))}
        </List>
      )}
      {failure?.requestId && (
        <Text size="xs" c="dimmed">
          request id {failure.requestId}
        </Text>
      )}
    </Alert>
  );
}
