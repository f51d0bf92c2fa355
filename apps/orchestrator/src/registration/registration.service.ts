import { createHash, randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { AppRole } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { CONFIG, currentContext } from '@mm/platform';
import { AgentsService, newAgentCode } from '../identities/agents/agents.service';
import { maskPhone } from '../common/validators';
import type { OrchestratorConfig } from '../orchestrator.config';
import { type Faults, SimulatedCrash } from '../workflows/fault-injection';
import { SagaLog } from '../workflows/saga-log.service';
import { SagaRunner, toException } from '../workflows/saga-runner.service';
import { FINAL_STATUSES, type SagaRecord } from '../workflows/saga.types';
import { HourlyThrottle } from './hourly-throttle';
import { RegistrationSteps } from './registration-steps';
import type { RegistrationContext, RegistrationInput, RegistrationKind, RegistrationResult } from './registration.types';

const ROLE_OF: Record<Exclude<RegistrationKind, 'REGISTER_STAFF'>, AppRole> = {
  REGISTER_CUSTOMER: 'CUSTOMER',
  REGISTER_MERCHANT: 'MERCHANT',
  REGISTER_AGENT: 'AGENT',
  REGISTER_ADMIN: 'ADMIN',
};

export interface RegistrationOptions {
  /** Idempotency-Key header or clientRequestId of the body */
  idempotencyKey?: string;
  /** the authenticated administrator registering an administrator or a staff user */
  requestedBy?: string;
  /** the client's address on a public route: the run is throttled per phone and per address */
  clientIp?: string;
  faults?: Faults;
  /** the first checker of the platform, created by one person (StaffCreationService): recorded in the run's context and result */
  bootstrapException?: boolean;
}

/** Canonical JSON (sorted keys) of the request without its secret: the request's fingerprint. */
function fingerprint(kind: RegistrationKind, input: RegistrationInput): string {
  const sorted = Object.fromEntries(Object.entries(input).sort(([a], [b]) => a.localeCompare(b)));
  return createHash('sha256')
    .update(`${kind}\n${JSON.stringify(sorted)}`)
    .digest('hex');
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Registration (docs/registration.md "Steps"), for every kind of user, as a saga whose
 * every step is logged. Idempotent with a key: the first run's outcome is the answer to every
 * repeat (a repeat while it runs waits for it); a run that failed for a reason of ours or of a
 * service (5xx, interrupted) gives the key back so a retry can run again. Without a key, two
 * registrations of one phone race at the identity provider, and exactly one wins.
 */
@Injectable()
export class RegistrationService {
  private readonly logger = new Logger(RegistrationService.name);

  constructor(
    @Inject(CONFIG) private readonly config: OrchestratorConfig,
    private readonly log: SagaLog,
    private readonly runner: SagaRunner,
    private readonly steps: RegistrationSteps,
    private readonly agents: AgentsService,
    private readonly throttle: HourlyThrottle,
  ) {}

  async register(
    kind: RegistrationKind,
    input: RegistrationInput,
    pin: string,
    options: RegistrationOptions = {},
  ): Promise<{ result: RegistrationResult; replayed: boolean }> {
    const requestHash = fingerprint(kind, input);
    if (options.clientIp !== undefined) await this.admit(input.phone, options.clientIp, options.idempotencyKey);
    for (let attempt = 0; attempt < 3; attempt++) {
      const context = await this.newContext(kind, input, options.requestedBy ?? null);
      if (options.bootstrapException) context.bootstrapException = true;
      const started = await this.log.start<RegistrationContext>({
        id: context.registrationId,
        kind,
        idempotencyKey: options.idempotencyKey ?? null,
        requestHash,
        phone: input.phone,
        context,
        correlationId: currentContext()?.correlationId ?? null,
        requestedBy: options.requestedBy ?? null,
      });
      if (started.created) return { result: await this.run(started.record, pin, options.faults), replayed: false };

      const previous = started.record;
      if (previous.requestHash !== requestHash || previous.kind !== kind) throw new AppException('IDEMPOTENCY_KEY_CONFLICT');
      const settled = await this.settled(previous);
      if (settled.status === 'succeeded') return { result: settled.result as RegistrationResult, replayed: true };
      if (settled.error && settled.error.status < 500) throw toException(settled.error);
      // Ended for a reason that a retry may not meet again: the key is free for a new run.
      await this.log.releaseKey(settled.id);
    }
    throw new AppException('IDEMPOTENCY_KEY_IN_PROGRESS');
  }

  /**
   * The throttle of the public routes, before anything is created: a refused attempt costs a Redis
   * call (with a key, also one indexed read), no PIN hash and no saga row. Only new runs count: a request whose Idempotency-Key already
   * names a run (a replay, a wait for a run still going, a conflict) starts nothing and is let
   * through, and so are concurrent copies of one admitted request (the key is remembered for the
   * window), so a client retrying its registration gets its answer, never a 429.
   */
  private async admit(phone: string, clientIp: string, idempotencyKey: string | undefined): Promise<void> {
    if (idempotencyKey !== undefined && (await this.log.byKey(idempotencyKey))) return;
    await this.throttle.consume(
      'registration',
      [
        { key: `registration:phone:${phone}`, max: this.config.REGISTRATION_MAX_PER_PHONE_PER_HOUR },
        { key: `registration:ip:${clientIp}`, max: this.config.REGISTRATION_MAX_PER_IP_PER_HOUR },
      ],
      idempotencyKey === undefined ? {} : { once: { scope: 'registration:key', id: idempotencyKey } },
    );
  }

  private async run(saga: SagaRecord<RegistrationContext>, pin: string, faults: Faults = []): Promise<RegistrationResult> {
    const c = saga.context;
    this.logger.log({ msg: 'registration started', registrationId: saga.id, kind: saga.kind, phone: maskPhone(c.phone) });
    try {
      const done = await this.runner.execute(saga, this.steps.plan(c.kind), { secret: pin, faults });
      const result: RegistrationResult = {
        ...this.steps.result(saga.id, done),
        ...(c.bootstrapException ? { bootstrapException: true } : {}),
      };
      await this.log.setStatus(saga.id, 'succeeded', { result });
      this.logger.log({ msg: 'registration succeeded', registrationId: saga.id, kind: saga.kind, userId: c.userId, role: c.role });
      return result;
    } catch (error) {
      if (error instanceof SimulatedCrash) {
        throw new AppException(
          'SERVICE_UNAVAILABLE',
          `Simulated crash after step ${error.step}; the recovery job will finish or undo the run`,
        );
      }
      throw error;
    }
  }

  /** The run once it has ended, waiting up to REGISTRATION_WAIT_MS for one still going. */
  private async settled(saga: SagaRecord<RegistrationContext>): Promise<SagaRecord<RegistrationContext>> {
    const deadline = Date.now() + this.config.REGISTRATION_WAIT_MS;
    let current = saga;
    while (!FINAL_STATUSES.includes(current.status)) {
      if (Date.now() >= deadline) throw new AppException('IDEMPOTENCY_KEY_IN_PROGRESS');
      await sleep(100);
      current = (await this.log.load<RegistrationContext>(saga.id)) ?? current;
    }
    return current;
  }

  private async newContext(kind: RegistrationKind, input: RegistrationInput, requestedBy: string | null): Promise<RegistrationContext> {
    const role: AppRole = kind === 'REGISTER_STAFF' ? (input.staffRole ?? 'SUPPORT') : ROLE_OF[kind];
    const profileId = randomUUID();
    const master = kind === 'REGISTER_AGENT' && input.masterAgentCode ? await this.agents.masterByCode(input.masterAgentCode) : undefined;
    const context: RegistrationContext = {
      registrationId: randomUUID(),
      kind,
      role,
      phone: input.phone,
      firstName: input.firstName,
      lastName: input.lastName,
      countryCode: input.countryCode,
      email: input.email ?? null,
      idpUserId: randomUUID(),
      userId: randomUUID(),
      profileId,
      requestedBy,
    };
    const person = `${input.firstName} ${input.lastName}`;
    if (kind === 'REGISTER_CUSTOMER') context.wallet = { ownerType: 'USER', ownerId: profileId, holderName: person };
    if (kind === 'REGISTER_MERCHANT') {
      const id = randomUUID();
      context.merchant = { id, businessName: input.businessName ?? person, category: input.category ?? 'OTHER' };
      context.wallet = { ownerType: 'MERCHANT', ownerId: id, holderName: context.merchant.businessName };
    }
    if (kind === 'REGISTER_AGENT') {
      const id = randomUUID();
      context.agent = { id, agentCode: newAgentCode(), masterAgentId: master?.id ?? null };
      context.wallet = { ownerType: 'AGENT', ownerId: id, holderName: person };
    }
    return context;
  }
}
