/** Where SMS leave the service. The driver is chosen by SMS_DRIVER (`dev` or `http`). */
export abstract class SmsSender {
  abstract send(to: string, text: string): Promise<void>;
}
