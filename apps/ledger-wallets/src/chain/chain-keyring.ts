import { createHash } from 'node:crypto';

/** The id anchors record of the key that signed them: the first 8 hex digits of its sha256. */
export const keyIdOf = (key: Buffer): string => createHash('sha256').update(key).digest('hex').slice(0, 8);

/**
 * The anchor keys (docs/ledger-chain.md#anchors-and-the-key): the current one signs and verifies,
 * retired ones (LEDGER_CHAIN_ANCHOR_RETIRED_KEYS) only verify the anchors they signed, each anchor
 * naming its key by id. Rotating the key thus keeps every earlier anchor verifiable.
 */
export class AnchorKeyring {
  readonly currentId: string;
  private readonly keys = new Map<string, Buffer>();

  /** `retired`: `keyId:key` pairs, comma-separated; an id that is not its key's is refused (a typo would silently break every old anchor). */
  constructor(
    readonly current: Buffer,
    retired: string | undefined,
  ) {
    this.currentId = keyIdOf(current);
    for (const pair of retired ? retired.split(',') : []) {
      const colon = pair.indexOf(':');
      const [id, key] = [pair.slice(0, colon), Buffer.from(pair.slice(colon + 1), 'utf8')];
      if (keyIdOf(key) !== id) {
        throw new Error(`Invalid configuration: LEDGER_CHAIN_ANCHOR_RETIRED_KEYS names key id ${id} for a key whose id is ${keyIdOf(key)}`);
      }
      this.keys.set(id, key);
    }
    this.keys.set(this.currentId, current);
  }

  /** The key with that id, current or retired; undefined: this ledger does not hold it. */
  get(keyId: string): Buffer | undefined {
    return this.keys.get(keyId);
  }
}
