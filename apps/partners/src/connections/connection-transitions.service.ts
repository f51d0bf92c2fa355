import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type ConnectionStatus, PARTNER_EVENT_TYPES, type RevokedBy } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { queryRows, withArticle } from '@mm/platform';
import { EventRelay } from '../events/event-relay.service';
import { EventsService, type NewEvent } from '../events/events.service';
import { CONNECTION_COLUMNS, type ConnectionRow } from './connection-row';

/** Who moves a connection, and which rows they may see (anything else is CONNECTION_NOT_FOUND). */
export type ConnectionActor =
  | { kind: 'merchant'; merchantId: string }
  | { kind: 'integration'; integrationId: string; livemode: boolean }
  | { kind: 'admin'; actorId: string };

export type ConnectionMove = 'accept' | 'reject' | 'revoke';

/**
 * The state machine of a connection (docs/partners.md "States", with what the partner API leaves
 * open decided here and documented in the OpenAPI document and docs/partners.md):
 *
 *   accept  pending → active (activatedAt)                       by the merchant (test mode: the test helper)
 *   reject  pending → rejected                                   by the merchant
 *   revoke  active → revoked (revokedBy merchant|integration|admin); an integration or an admin may
 *           also withdraw a pending request (→ revoked)
 *
 * Repeating a move that already happened (reject a rejected one, revoke a revoked one) answers the
 * connection unchanged, so a retried request is harmless. Every other move is 409 CONFLICT —
 * accepting an active connection and revoking an expired one included, as docs/partners.md "States" requires
 * (a second accept says the connection is already active and records nothing). A pending
 * request past its `pendingExpiresAt` is expired, whether or not the sweeper has marked it yet.
 */
@Injectable()
export class ConnectionTransitions {
  private readonly logger = new Logger(ConnectionTransitions.name);

  constructor(
    private readonly db: DataSource,
    private readonly events: EventsService,
    private readonly relay: EventRelay,
  ) {}

  async move(connectionId: string, move: ConnectionMove, actor: ConnectionActor): Promise<ConnectionRow> {
    let recorded = false;
    const row = await this.db.transaction(async (tx) => {
      const params: unknown[] = [connectionId];
      let scope = '';
      if (actor.kind === 'merchant') {
        params.push(actor.merchantId);
        scope = ` AND c.merchant_id = $2 AND c.livemode`;
      } else if (actor.kind === 'integration') {
        params.push(actor.integrationId, actor.livemode);
        scope = ` AND c.integration_id = $2 AND c.livemode = $3`;
      }
      const found = await queryRows<ConnectionRow>(
        tx,
        `SELECT ${CONNECTION_COLUMNS} FROM partners.connections c JOIN partners.integrations i ON i.id = c.integration_id
          WHERE c.id = $1${scope} FOR UPDATE OF c`,
        params,
      );
      if (found.length === 0) throw new AppException('CONNECTION_NOT_FOUND');
      const current = found[0];
      const target = this.decide(current.status, move, actor);
      if (target === 'unchanged') return current;

      const revokedBy: RevokedBy | null = target === 'revoked' ? (actor.kind === 'admin' ? 'admin' : actor.kind) : null;
      await tx.query(
        `UPDATE partners.connections SET status = $2::text,
                activated_at = CASE WHEN $2 = 'active' THEN now() ELSE activated_at END,
                rejected_at = CASE WHEN $2 = 'rejected' THEN now() ELSE rejected_at END,
                revoked_at = CASE WHEN $2 = 'revoked' THEN now() ELSE revoked_at END,
                revoked_by = CASE WHEN $2 = 'revoked' THEN $3::text ELSE revoked_by END,
                updated_at = now()
          WHERE id = $1`,
        [connectionId, target, revokedBy],
      );
      const updated = await queryRows<ConnectionRow>(
        tx,
        `SELECT ${CONNECTION_COLUMNS} FROM partners.connections c JOIN partners.integrations i ON i.id = c.integration_id WHERE c.id = $1`,
        [connectionId],
      );
      const next = updated[0];
      const event = this.eventFor(next, target, revokedBy);
      if (event) recorded = (await this.events.record(tx, event)) !== null;
      this.logger.log({ msg: 'connection moved', connectionId, from: current.status, to: target, by: actor.kind });
      return next;
    });
    if (recorded) this.relay.kick();
    return row;
  }

  private decide(status: ConnectionStatus, move: ConnectionMove, actor: ConnectionActor): ConnectionStatus | 'unchanged' {
    switch (move) {
      case 'accept':
        if (status === 'pending') return 'active';
        // docs/partners.md "States" makes this a 409; the message says the merchant's goal is already reached.
        if (status === 'active') throw new AppException('CONFLICT', 'This connection is already active');
        throw new AppException('CONFLICT', `${withArticle(status, true)} connection cannot be accepted`);
      case 'reject':
        if (status === 'pending') return 'rejected';
        if (status === 'rejected') return 'unchanged';
        throw new AppException(
          'CONFLICT',
          status === 'active'
            ? 'An active connection cannot be rejected: revoke it instead'
            : `${withArticle(status, true)} connection cannot be rejected`,
        );
      case 'revoke':
        if (status === 'active') return 'revoked';
        if (status === 'revoked') return 'unchanged';
        if (status === 'pending' && actor.kind !== 'merchant') return 'revoked';
        throw new AppException(
          'CONFLICT',
          status === 'pending'
            ? 'A pending connection is rejected, not revoked'
            : `${withArticle(status, true)} connection cannot be revoked`,
        );
    }
  }

  private eventFor(row: ConnectionRow, target: ConnectionStatus, revokedBy: RevokedBy | null): NewEvent | null {
    const base = { integrationId: row.integration_id, livemode: row.livemode, subjectId: row.id };
    if (target === 'active') {
      return {
        ...base,
        type: PARTNER_EVENT_TYPES.connectionActivated,
        data: { connectionId: row.id, merchantId: row.merchant_ref, scopes: row.scopes, activatedAt: row.activated_at!.toISOString() },
      };
    }
    if (target === 'revoked' && revokedBy === 'merchant') {
      return {
        ...base,
        type: PARTNER_EVENT_TYPES.connectionRevokedByMerchant,
        data: { connectionId: row.id, merchantId: row.merchant_ref, revokedAt: row.revoked_at!.toISOString() },
      };
    }
    return null;
  }
}
