import { AppException } from '@mm/errors';

/**
 * Test-only faults of a workflow run, read from the `X-Saga-Fault` header when
 * SAGA_FAULT_INJECTION is on (the config refuses it in production):
 *   fail:STEP        the step fails before doing anything
 *   fail-after:STEP  the step does its work, then fails (its outcome must still be undone)
 *   crash:STEP       the run stops right after the step, as if the process died (no compensation)
 *   undo-fail:STEP   undoing the step fails
 * Several, comma-separated: `fail:WALLET,undo-fail:LOCAL_USER`.
 */
export type FaultMode = 'fail' | 'fail-after' | 'crash' | 'undo-fail';
export type Faults = ReadonlyArray<{ mode: FaultMode; step: string }>;

const MODES: readonly FaultMode[] = ['fail', 'fail-after', 'crash', 'undo-fail'];

export const FAULT_HEADER = 'x-saga-fault';

export function parseFaults(header: string | undefined): Faults {
  if (!header) return [];
  return header.split(',').map((part) => {
    const [mode, step] = part.trim().split(':');
    if (!MODES.includes(mode as FaultMode) || !step || !/^[A-Z_]+$/.test(step)) {
      throw new AppException('VALIDATION_ERROR', `X-Saga-Fault: "${part}" is not mode:STEP`, {
        errors: [{ field: FAULT_HEADER, code: 'INVALID_FAULT', message: 'expected fail|fail-after|crash|undo-fail:STEP' }],
      });
    }
    return { mode: mode as FaultMode, step };
  });
}

export function hasFault(faults: Faults, mode: FaultMode, step: string): boolean {
  return faults.some((f) => f.mode === mode && f.step === step);
}

/** What an injected step failure looks like: the step's service is unavailable. */
export function injectedFailure(step: string): AppException {
  return new AppException('UPSTREAM_UNAVAILABLE', `Injected fault at step ${step}`);
}

/** Thrown to stop a run dead, as a killed process would (tests only). */
export class SimulatedCrash extends Error {
  constructor(readonly step: string) {
    super(`Simulated crash after step ${step}`);
  }
}
