/** Where SMS go: the development store or the provider's HTTP API (SMS_DRIVER). */
export abstract class SmsSender {
  /** Throws when the message was not accepted; the outbox retries it. */
  abstract send(to: string, text: string): Promise<void>;
}
