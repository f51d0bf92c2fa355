import { Anchor } from '@mantine/core';
import type { ReactNode } from 'react';
import { BASE, navigate } from '../router';

/** A real link (middle-click, copy address, Enter) that changes screen without reloading the page. */
export function Link({ to, children, testId }: { to: string; children: ReactNode; testId?: string }) {
  return (
    <Anchor
      href={BASE + to}
      data-testid={testId}
      onClick={(event) => {
        if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
        event.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </Anchor>
  );
}
