import { Inject, Injectable, Logger } from '@nestjs/common';
import { CONFIG } from '@mm/platform';
import type { OrchestratorConfig } from '../orchestrator.config';

export interface OpsAlert {
  text: string;
  correlationId: string;
  [detail: string]: unknown;
}

/**
 * The operations team's alert channel (OPS_ALERT_URL, a chat webhook taking JSON), configured the
 * way the ledger's integrity alert is. Never throws: a failed alert is itself logged at ERROR.
 */
@Injectable()
export class OpsAlerts {
  private readonly logger = new Logger(OpsAlerts.name);

  constructor(@Inject(CONFIG) private readonly config: OrchestratorConfig) {}

  async raise(alert: OpsAlert): Promise<boolean> {
    const url = this.config.OPS_ALERT_URL;
    if (!url) return false;
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-correlation-id': alert.correlationId },
        body: JSON.stringify(alert),
        signal: AbortSignal.timeout(5_000),
      });
      if (!res.ok) throw new Error(`alert webhook answered ${res.status}`);
      return true;
    } catch (error) {
      this.logger.error({ msg: 'ops alert could not be delivered', err: error, correlationId: alert.correlationId });
      return false;
    }
  }
}
