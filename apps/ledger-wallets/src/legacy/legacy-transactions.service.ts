import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { LedgerDb } from '../db/ledger-db.service';
import type { DbSession } from '../db/db-session';
import { type IdempotentResponse, IdempotencyService, type RecordResponse } from '../idempotency/idempotency.service';
import { requestHash } from '../idempotency/canonical-hash';
import { IntentTransitionService } from '../intents/intent-transition.service';
import type { IntentView } from '../intents/intent-view';
import { IntentsService } from '../intents/intents.service';
import type { LegacyTransactionDto } from './dto/legacy-transaction.dto';

/**
 * Thin adapter of the deprecated direct transfer onto the intent path: create (freeze), move to
 * PIN_VERIFIED (the legacy caller authenticated the user itself), then SUCCEEDED through the very
 * same atomic execution. If the execution fails the intent is moved to FAILED, which releases the
 * hold. All three steps run on one connection, inside the idempotency key's lock when one is given.
 */
@Injectable()
export class LegacyTransactionsService {
  private readonly logger = new Logger(LegacyTransactionsService.name);

  constructor(
    private readonly db: LedgerDb,
    private readonly intents: IntentsService,
    private readonly transitions: IntentTransitionService,
    private readonly idempotency: IdempotencyService,
  ) {}

  transfer(dto: LegacyTransactionDto, idempotencyKey?: string): Promise<IdempotentResponse<IntentView>> {
    return this.db.withSession(async (session) => {
      if (!idempotencyKey) return { status: 201, body: await this.run(session, dto), replayed: false };
      return this.idempotency.run(session, 'legacy.transaction', idempotencyKey, requestHash(dto), async (record) => ({
        status: 201,
        body: await this.run(session, dto, record),
      }));
    });
  }

  private async run(session: DbSession, dto: LegacyTransactionDto, record?: RecordResponse): Promise<IntentView> {
    const actor = { id: dto.createdBy };
    const intent = await this.intents.createOn(
      session,
      {
        type: 'TRANSFER',
        sourceAccountId: dto.sourceAccountId,
        destinationAccountId: dto.destinationAccountId,
        amount: dto.amount,
        fee: dto.fee ?? 0,
        currency: dto.currency,
        description: dto.description,
        actor,
        metadata: { channel: 'legacy POST /v1/transactions' },
      },
      randomUUID(),
    );
    try {
      await this.transitions.move(session, intent.intentId, { toStatus: 'PIN_VERIFIED', actor, metadata: { legacy: true } }, undefined, {
        consent: 'IN_PROCESS_LEGACY_TRANSFER',
      });
      return await this.transitions.move(
        session,
        intent.intentId,
        {
          toStatus: 'SUCCEEDED',
          actor,
          executionContext: {
            sourceAccountId: dto.sourceAccountId,
            destinationAccountId: dto.destinationAccountId,
            amount: dto.amount,
            currency: dto.currency,
            fee: dto.fee ? { amount: dto.fee } : undefined,
            createdBy: dto.createdBy,
            metadata: { typeCode: dto.typeCode ?? 'LEGACY_TRANSFER', description: dto.description },
          },
        },
        // Stored with the status this route answers (201), not the transition's 200.
        record && ((s, _status, body) => record(s, 201, body)),
      );
    } catch (error) {
      // Give the hold back; if even that fails the expiry sweeper releases it at the intent's expiry.
      await this.transitions
        .move(session, intent.intentId, { toStatus: 'FAILED', actor: { id: 'system:legacy-adapter' }, reason: 'legacy execution failed' })
        .catch((releaseError: unknown) =>
          this.logger.error({ err: releaseError, intentId: intent.intentId }, 'could not fail the legacy intent'),
        );
      throw error;
    }
  }
}
