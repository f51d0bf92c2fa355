import { TextInput } from '@mantine/core';

/**
 * A date and time in the operator's own time zone (the browser's native picker, keyboard usable),
 * handed to the caller as an ISO instant, or undefined while empty or incomplete.
 */
export function DateTimeField(props: {
  label: string;
  description?: string;
  value: string;
  onChange: (local: string) => void;
  required?: boolean;
}) {
  return (
    <TextInput
      type="datetime-local"
      label={props.label}
      description={props.description}
      required={props.required}
      value={props.value}
      onChange={(event) => props.onChange(event.currentTarget.value)}
    />
  );
}

/** `2026-11-28T14:05` (local time, what the input holds) → ISO instant; undefined when empty or invalid. */
export function localToIso(local: string): string | undefined {
  if (!local) return undefined;
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** An instant → the input's local `YYYY-MM-DDTHH:mm`. */
export function isoToLocal(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}
