import { Injectable, Logger } from '@nestjs/common';
import { AppException, ERROR_CATALOG } from '@mm/errors';
import { currentContext } from '@mm/platform';
import { OpsAlerts } from '../notifications/ops-alert.service';
import { type Faults, SimulatedCrash, hasFault, injectedFailure } from './fault-injection';
import { SagaLog } from './saga-log.service';
import type { SagaError, SagaRecord, SagaStep } from './saga.types';

export function toSagaError(error: unknown): SagaError {
  if (error instanceof AppException) return { code: error.code, message: error.message, status: error.status };
  return { code: 'INTERNAL_ERROR', message: ERROR_CATALOG.INTERNAL_ERROR.message, status: 500 };
}

export function toException(error: SagaError): AppException {
  return new AppException(error.code, error.message, { status: error.status });
}

/**
 * Drives a workflow's steps with its log: `started` is written before each call and `done` after
 * it; on a failure the steps that may have happened (the failed one included) are undone in
 * reverse order, each `compensating` → `compensated` | `compensation_failed`, and the original
 * error is returned. A failed undo does not stop the others (what can still be undone is), and is
 * logged at ERROR with the correlation id and raised to the operations team.
 */
@Injectable()
export class SagaRunner {
  private readonly logger = new Logger(SagaRunner.name);

  constructor(
    private readonly log: SagaLog,
    private readonly alerts: OpsAlerts,
  ) {}

  /**
   * Runs `steps` from `startAt` (recovery resumes after the steps already done). Answers the final
   * context; throws the step's error after compensation, or SimulatedCrash leaving the run as is.
   */
  async execute<C>(
    saga: SagaRecord<C>,
    steps: SagaStep<C>[],
    options: { secret?: string; faults?: Faults; startAt?: number } = {},
  ): Promise<C> {
    const faults = options.faults ?? [];
    let context = saga.context;
    for (let i = options.startAt ?? 0; i < steps.length; i++) {
      const step = steps[i];
      await this.log.event(saga.id, step.name, 'started');
      try {
        if (hasFault(faults, 'fail', step.name)) throw injectedFailure(step.name);
        const next = await step.run(context, options.secret);
        if (next) {
          context = next;
          await this.log.saveContext(saga.id, context);
        }
        if (hasFault(faults, 'fail-after', step.name)) throw injectedFailure(step.name);
        await this.log.event(saga.id, step.name, 'done');
      } catch (error) {
        const sagaError = toSagaError(error);
        await this.log.event(saga.id, step.name, 'failed', sagaError);
        this.logger.warn({
          msg: 'workflow step failed: compensating',
          sagaId: saga.id,
          kind: saga.kind,
          step: step.name,
          code: sagaError.code,
        });
        await this.compensate({ ...saga, context }, steps.slice(0, i + 1), sagaError, faults);
        throw error instanceof AppException ? error : toException(sagaError);
      }
      if (hasFault(faults, 'crash', step.name)) throw new SimulatedCrash(step.name);
    }
    return context;
  }

  /** Undoes `steps` in reverse order and ends the run compensated (or compensation_failed). */
  async compensate<C>(saga: SagaRecord<C>, steps: SagaStep<C>[], cause: SagaError, faults: Faults = []): Promise<void> {
    await this.log.setStatus(saga.id, 'compensating', { error: cause });
    const failures: Array<{ step: string; error: SagaError }> = [];
    for (const step of [...steps].reverse()) {
      await this.log.event(saga.id, step.name, 'compensating');
      try {
        if (hasFault(faults, 'undo-fail', step.name)) throw injectedFailure(`${step.name} (compensation)`);
        await step.undo(saga.context);
        await this.log.event(saga.id, step.name, 'compensated');
      } catch (error) {
        const sagaError = toSagaError(error);
        failures.push({ step: step.name, error: sagaError });
        await this.log.event(saga.id, step.name, 'compensation_failed', sagaError);
        this.logger.error({
          msg: 'compensation failed: manual action needed',
          sagaId: saga.id,
          kind: saga.kind,
          step: step.name,
          code: sagaError.code,
          correlationId: saga.correlationId ?? currentContext()?.correlationId,
          err: error,
        });
      }
    }
    await this.log.setStatus(saga.id, failures.length > 0 ? 'compensation_failed' : 'compensated');
    if (failures.length > 0) {
      await this.alerts.raise({
        text: `Workflow ${saga.kind} ${saga.id}: ${failures.length} compensation step(s) failed (${failures.map((f) => f.step).join(', ')}); manual clean-up needed`,
        correlationId: saga.correlationId ?? currentContext()?.correlationId ?? saga.id,
        sagaId: saga.id,
        kind: saga.kind,
        cause,
        failures,
      });
    }
  }
}
