import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { PeriodicJob, currentContext, ALWAYS_LEADER, JOB_LEASE, type JobLease } from '@mm/platform';
import { LedgerDb } from '../db/ledger-db.service';
import { ComplianceChannel } from '../common/compliance-channel.service';
import { LedgerWalletsConfig } from '../ledger-wallets.config';
import { CORRECTION_COLUMNS, type CorrectionRow, type CorrectionView, toCorrectionView } from './correction-view';
import { CorrectionsSettings } from './corrections.settings';

/** How often executed corrections whose alert was not acknowledged are sent again. */
const RETRY_EVERY_MS = 60_000;

/**
 * Every executed correction is announced on the compliance channel. The alert is sent right after
 * the correction commits; until the channel acknowledges it (`alerted_at`), it is sent again every
 * minute (while the background jobs run, i.e. LEDGER_OUTBOX_POLL_MS > 0), so a channel outage
 * delays an alert but never loses it. The first failure is journaled on the correction.
 */
@Injectable()
export class CorrectionAlerts implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(CorrectionAlerts.name);
  private readonly job = new PeriodicJob(
    'ledger.correction-alerts',
    () => this.retryPending(),
    (error) => this.logger.warn({ err: error }, 'correction alert retry failed'),
  );

  constructor(
    private readonly db: LedgerDb,
    private readonly config: LedgerWalletsConfig,
    private readonly settings: CorrectionsSettings,
    private readonly channel: ComplianceChannel,
    @Inject(JOB_LEASE) private readonly leases: JobLease = ALWAYS_LEADER,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.LEDGER_OUTBOX_POLL_MS <= 0 || !this.settings.alertUrl) return;
    this.job.start(RETRY_EVERY_MS, this.leases);
  }

  onApplicationShutdown(): Promise<void> {
    return this.job.stop();
  }

  /** Sends the alert of one executed correction; records the outcome. True when acknowledged. */
  async deliver(correction: CorrectionView, firstAttempt = true): Promise<boolean> {
    const correlationId = currentContext()?.correlationId ?? randomUUID();
    const sent = await this.channel.send(
      this.settings.alertUrl,
      {
        text: alertText(correction),
        kind: 'correction.executed',
        correctionId: correction.id,
        correctionKind: correction.kind,
        accountId: correction.accountId,
        direction: correction.direction,
        reversalOf: correction.reversalOf,
        amount: correction.amount,
        currency: correction.currency,
        reason: correction.reason,
        makerId: correction.maker.id,
        checkerId: correction.checker?.id ?? null,
        requiresCompliance: correction.requiresCompliance,
        transactionId: correction.transactionId,
        referenceId: correction.referenceId,
        correlationId,
      },
      correlationId,
    );
    if (sent) {
      await this.db.query(
        `WITH u AS (UPDATE ledger.corrections SET alerted_at = now() WHERE id = $1 AND alerted_at IS NULL RETURNING id)
         INSERT INTO ledger.correction_events (correction_id, event, actor_id, metadata) SELECT id, 'alert_sent', 'system:compliance-alert', $2::jsonb FROM u`,
        [correction.id, JSON.stringify({ correlationId })],
      );
    } else if (firstAttempt) {
      const why = this.settings.alertUrl ? 'the compliance channel did not acknowledge' : 'no compliance channel is configured';
      await this.db.query(
        `INSERT INTO ledger.correction_events (correction_id, event, actor_id, reason, metadata) VALUES ($1, 'alert_failed', 'system:compliance-alert', $2, $3::jsonb)`,
        [correction.id, why, JSON.stringify({ correlationId })],
      );
    }
    return sent;
  }

  /** Executed corrections still waiting for an acknowledged alert, oldest first. */
  async retryPending(): Promise<number> {
    const rows = await this.db.query<CorrectionRow>(
      `SELECT ${CORRECTION_COLUMNS} FROM ledger.corrections WHERE status = 'EXECUTED' AND alerted_at IS NULL ORDER BY decided_at LIMIT 50`,
    );
    let sent = 0;
    for (const row of rows) if (await this.deliver(toCorrectionView(row), false)) sent++;
    return sent;
  }
}

function alertText(c: CorrectionView): string {
  const who = `(maker ${c.maker.id}, checker ${c.checker?.id})`;
  if (c.kind === 'REVERSAL') {
    return `Ledger reversal ${c.id} executed: transaction ${c.reversalOf?.referenceId} (${c.amount} ${c.currency}) reversed in full, every account ${who}`;
  }
  return `Ledger correction ${c.id} executed: ${c.direction} ${c.amount} ${c.currency} on account ${c.accountId} ${who}`;
}
