import { createHash } from 'node:crypto';

/**
 * Advisory lock key of an entity with a UUID id: its first 64 bits. UUIDs v4 are random, so two
 * distinct ids share a key with negligible probability, and if they ever did the only effect
 * would be that two unrelated operations run one after the other.
 */
export function uuidLockKey(id: string): bigint {
  return BigInt.asIntN(64, BigInt(`0x${id.replace(/-/g, '').slice(0, 16)}`));
}

/** Lock key of any string (idempotency keys): first 64 bits of its SHA-256. */
export function stringLockKey(value: string): bigint {
  return BigInt.asIntN(64, BigInt(`0x${createHash('sha256').update(value).digest('hex').slice(0, 16)}`));
}

/**
 * The lock keys of one money operation in the only order anyone takes them: the intent first (when
 * there is one), then the accounts in ascending id order
 * (docs/ledger.md "Locks, isolation and retries", step 1). Every path that moves money, expiry
 * sweeps included, goes through here, so two operations can never wait on each other in a cycle.
 */
export function moneyLockKeys(accountIds: string[], intentId?: string): bigint[] {
  const accounts = [...new Set(accountIds.map((id) => id.toLowerCase()))].sort();
  const keys = (intentId ? [intentId.toLowerCase()] : []).concat(accounts).map(uuidLockKey);
  return [...new Set(keys)];
}
