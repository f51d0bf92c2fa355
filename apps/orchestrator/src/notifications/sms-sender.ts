/** Where SMS go: the development store or the provider's HTTP API (SMS_DRIVER). */
export abstract class SmsSender {
  /**
   * Throws when the message was not accepted; the outbox retries it. `messageId` is the same for
   * every try of one message, whichever replica makes it (the outbox row's id).
   */
  abstract send(to: string, text: string, messageId?: string): Promise<void>;
}
