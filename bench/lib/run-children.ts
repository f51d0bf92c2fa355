import type { ChildProcess } from 'node:child_process';
import { stopProcess } from './bench';

const running = new Set<ChildProcess>();

/**
 * Marks a service the bench started as one to stop if the run is interrupted. Ctrl-C in a terminal
 * signals the whole process group, services included, but SIGINT or SIGTERM sent to the bench's pid
 * alone (`kill`, `timeout`, a CI job's cancel) reaches only the bench, and without this its services
 * would outlive it, holding their ports. (Forked receivers end themselves when their IPC channel
 * closes.) Returns the child, so a spawn can be wrapped in place.
 */
export function stopWithRun<T extends ChildProcess>(child: T): T {
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

/** Stops every marked service still running and waits until each is gone (withRunDatabase, on a signal). */
export async function stopRunChildren(): Promise<void> {
  await Promise.all([...running].map((child) => stopProcess(child)));
}
