import { Alert, Stack, Title } from '@mantine/core';
import type { ReactNode } from 'react';

/**
 * One part of a composed answer (a 360 view, a payment story). The platform gathers parts from
 * several services and says which one it could not read (`unavailable`) instead of failing the page.
 */
export function Part({
  title,
  unavailable,
  children,
  testId,
}: {
  title: string;
  unavailable?: string | null;
  children?: ReactNode;
  testId?: string;
}) {
  const id = `part-${title.toLowerCase().replace(/\W+/g, '-')}`;
  return (
    <Stack component="section" aria-labelledby={id} gap="xs" data-testid={testId}>
      <Title order={2} size="h4" id={id}>
        {title}
      </Title>
      {unavailable ? (
        <Alert color="orange" title="Not available right now">
          {unavailable}
        </Alert>
      ) : (
        children
      )}
    </Stack>
  );
}
