/**
 * Payloads the ledger publishes on the `ledger-events` queue (outbox relay).
 * Owned by the ledger-wallets service; consumers (partners) read them.
 */
export {};
