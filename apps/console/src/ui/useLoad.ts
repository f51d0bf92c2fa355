import { useCallback, useEffect, useState } from 'react';

/** Loads once per dependency change; `reload` after an action. The error is the platform's refusal. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): { data?: T; error?: unknown; reload: () => Promise<void> } {
  const [state, setState] = useState<{ data?: T; error?: unknown }>({});
  const run = useCallback(load, deps);
  const reload = useCallback(async () => {
    try {
      setState({ data: await run() });
    } catch (error) {
      setState({ error });
    }
  }, [run]);
  useEffect(() => void reload(), [reload]);
  return { ...state, reload };
}
