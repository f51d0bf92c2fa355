import { Injectable, Logger } from '@nestjs/common';
import { OrchestratorConfig } from '../orchestrator.config';
import { REPORT_LOG_CODES } from './report-log-codes';

/**
 * The compliance channel: the chat webhook (JSON POST) the ledger's integrity and correction alerts
 * go to, given to the orchestrator as COMPLIANCE_ALERT_URL. One try with a 5 s timeout; never throws.
 * A report's alert is stored as an event before it is sent, so a failed delivery is not tried again:
 * it is logged at ERROR (REGULATORY_ALERT_NOT_DELIVERED) beside the alert's own ERROR line, and the
 * report keeps listing the alert (docs/regulatory-reports.md "Alerts").
 */
@Injectable()
export class ComplianceChannel {
  private readonly logger = new Logger(ComplianceChannel.name);

  constructor(private readonly config: OrchestratorConfig) {}

  /** true when the channel acknowledged it; false when no channel is configured or it did not. */
  async send(message: { text: string; correlationId: string; [detail: string]: unknown }): Promise<boolean> {
    const url = this.config.COMPLIANCE_ALERT_URL;
    if (!url) return false;
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-correlation-id': message.correlationId },
        body: JSON.stringify(message),
        signal: AbortSignal.timeout(5_000),
      });
      if (!res.ok) throw new Error(`the compliance channel answered ${res.status}`);
      return true;
    } catch (error) {
      this.logger.error(
        { code: REPORT_LOG_CODES.ALERT_NOT_DELIVERED, correlationId: message.correlationId, err: error },
        'regulatory report alert not delivered to the compliance channel',
      );
      return false;
    }
  }
}
