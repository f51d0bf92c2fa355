import { Injectable, Logger } from '@nestjs/common';

/** One try at the channel: delivered, or why not (never a secret: the URL is not in it). */
export interface AlertOutcome {
  delivered: boolean;
  error?: string;
}

/**
 * The compliance chat channel (docs/ledger.md "Audit and the integrity job": integrity gaps and, here, every executed correction): a
 * webhook receiving one JSON message per alert, with a human `text` line and the facts. A failed
 * delivery is logged and reported to the caller (which keeps it to retry), never thrown.
 */
@Injectable()
export class ComplianceChannel {
  private readonly logger = new Logger(ComplianceChannel.name);

  async send(url: string | undefined, message: { text: string } & Record<string, unknown>, correlationId: string): Promise<boolean> {
    if (!url) return false;
    return (await this.deliver(url, message, correlationId)).delivered;
  }

  /** One try (5 s timeout); a failure is logged and described, never thrown. */
  async deliver(url: string, message: { text: string } & Record<string, unknown>, correlationId: string): Promise<AlertOutcome> {
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-correlation-id': correlationId },
        body: JSON.stringify(message),
        signal: AbortSignal.timeout(5_000),
      });
      if (!res.ok) throw new Error(`alert webhook answered ${res.status}`);
      return { delivered: true };
    } catch (error) {
      this.logger.error({ err: error, correlationId }, 'compliance alert could not be delivered');
      return { delivered: false, error: error instanceof Error ? error.message : String(error) };
    }
  }
}
