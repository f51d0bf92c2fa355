import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ALWAYS_LEADER, CONFIG, JOB_LEASE, type JobLease, PeriodicJob, requestContext } from '@mm/platform';
import type { OrchestratorConfig } from '../orchestrator.config';
import { SagaLog } from '../workflows/saga-log.service';
import { SagaRunner, toSagaError } from '../workflows/saga-runner.service';
import type { SagaRecord, StepEvent } from '../workflows/saga.types';
import { AppException } from '@mm/errors';
import { RegistrationSteps } from './registration-steps';
import { type RegistrationContext, STEP } from './registration.types';

const INTERRUPTED = new AppException('SERVICE_UNAVAILABLE', 'The registration was interrupted; it has been undone, retry it');

/**
 * Finishes or undoes the registration runs a dead process left behind (status running or
 * compensating, log quiet for SAGA_RECOVERY_STALE_MS), once at start and then every
 * SAGA_RECOVERY_INTERVAL_MS on the replica leading `orchestrator.registration-recovery`:
 * - the identity-provider user exists (step done): the remaining steps are run forward (each is
 *   idempotent and none needs the PIN); if one fails, the run is compensated as usual;
 * - otherwise (the PIN is gone with the request, step 1 cannot be replayed): every step that may
 *   have happened is undone, in reverse order;
 * - a run cut while compensating: its compensation is carried on.
 * Work happens under the run's own correlation id, so its logs and calls join the original request's.
 */
@Injectable()
export class RegistrationRecovery implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(RegistrationRecovery.name);
  private readonly job = new PeriodicJob(
    'orchestrator.registration-recovery',
    () => this.recoverAll(),
    () => undefined,
  );
  private pass?: Promise<number>;
  private stopped = false;

  constructor(
    @Inject(CONFIG) private readonly config: OrchestratorConfig,
    private readonly log: SagaLog,
    private readonly runner: SagaRunner,
    private readonly steps: RegistrationSteps,
    @Inject(JOB_LEASE) private readonly leases: JobLease = ALWAYS_LEADER,
  ) {}

  onApplicationBootstrap(): void {
    // Not awaited: a slow upstream must not hold the app's start; the pass runs in the background.
    // On every replica that starts: a run is claimed by one UPDATE ... SKIP LOCKED, so passes never share one.
    this.pass = this.job.runNow();
    this.job.start(this.config.SAGA_RECOVERY_INTERVAL_MS, this.leases);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await this.job.stop();
  }

  /** The pass started at boot (tests wait for it). */
  startupPass(): Promise<number> {
    return this.pass ?? Promise.resolve(0);
  }

  /** One pass: answers how many runs it took over. Never throws. */
  async recoverAll(): Promise<number> {
    try {
      const ids = await this.log.claimAbandoned(this.config.SAGA_RECOVERY_STALE_MS);
      for (const id of ids) {
        if (this.stopped) break;
        await this.recover(id);
      }
      return ids.length;
    } catch (error) {
      this.logger.error({ msg: 'registration recovery pass failed', err: error });
      return 0;
    }
  }

  private async recover(id: string): Promise<void> {
    const saga = await this.log.load<RegistrationContext>(id);
    if (!saga) return;
    const context = { requestId: randomUUID(), correlationId: saga.correlationId ?? randomUUID() };
    await requestContext.run(context, async () => {
      try {
        await this.resume(saga);
      } catch (error) {
        // Forward work that failed was compensated by the runner; anything else is logged for ops.
        this.logger.warn({ msg: 'recovered registration ended in failure', registrationId: saga.id, code: toSagaError(error).code });
      }
    });
  }

  private async resume(saga: SagaRecord<RegistrationContext>): Promise<void> {
    const plan = this.steps.plan(saga.context.kind);
    const states = await this.log.stepStates(saga.id);
    const touched = plan.filter((s) => states.has(s.name));
    const log = { registrationId: saga.id, kind: saga.kind, steps: Object.fromEntries(states) };

    if (saga.status === 'compensating') {
      const pending = touched.filter((s) => states.get(s.name) !== 'compensated');
      this.logger.warn({ msg: 'recovering an interrupted compensation', ...log });
      await this.runner.compensate(saga, pending, saga.error ?? toSagaError(INTERRUPTED));
      return;
    }
    const done = (name: string): boolean => (states.get(name) as StepEvent | undefined) === 'done';
    if (!done(STEP.IDP_USER)) {
      this.logger.warn({ msg: 'recovering an interrupted registration: undoing it', ...log });
      await this.runner.compensate(saga, touched, toSagaError(INTERRUPTED));
      return;
    }
    const startAt = plan.findIndex((s) => !done(s.name));
    this.logger.warn({ msg: 'recovering an interrupted registration: finishing it', ...log, from: plan[startAt]?.name ?? 'end' });
    const finished = startAt === -1 ? saga.context : await this.runner.execute(saga, plan, { startAt });
    await this.log.setStatus(saga.id, 'succeeded', { result: this.steps.result(saga.id, finished) });
  }
}
