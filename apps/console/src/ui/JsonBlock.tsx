import { Code } from '@mantine/core';

/** A JSON value as the platform answered it, for the parts of an answer that have no fixed shape. */
export function JsonBlock({ value, label }: { value: unknown; label: string }) {
  return (
    <Code block aria-label={label} style={{ maxHeight: 360, overflow: 'auto' }}>
      {JSON.stringify(value, null, 2)}
    </Code>
  );
}
