import type { ErrorCode } from '@mm/errors';
import type { ApprovalAction } from '../approval-handler';

/**
 * One whole body of `POST /api/backoffice/approvals` per action, as the OpenAPI document shows
 * them. The payload's fields depend on the action (its handler checks them), which the body schema
 * alone cannot say: these examples are where a client reads each shape. Every one is accepted by
 * the handler's validation (the conformance test sends them all). The record is keyed by every
 * action code: a new code in APPROVAL_ACTIONS does not type-check until its example is added here.
 */
const ACCOUNT_ID = '2c9e4f7a-8b1d-4e3c-a5f6-7d8e9f0a1b2c';

/** A complete risk section: a configuration change replaces the whole section. */
export const RISK_CHANGE_PAYLOAD = {
  section: 'risk',
  baseVersion: 1,
  reason: 'Tighter velocity after the fraud review of November',
  document: {
    velocity: { windowSeconds: 600, maxPerCustomer: 8, maxPerAgent: 60, maxPerMerchant: 30, maxPerDevice: 12 },
    newRecipientHighAmountPercent: 80,
  },
};

const PAYLOADS: Record<ApprovalAction, { summary: string; payload: Record<string, unknown>; reason: string }> = {
  LEDGER_CORRECTION: {
    summary: 'credit or debit one account against suspense',
    payload: { accountId: ACCOUNT_ID, direction: 'CREDIT', amount: 25_000, currency: 'XAF', reason: 'Cash-in missing, bank line 118' },
    reason: 'Bank statement of 27 November, line 118',
  },
  LEDGER_REVERSAL: {
    summary: 'undo a whole transaction, named by referenceId or transactionId',
    payload: { referenceId: 'MMPTX261126K7Q2M9Z', reason: 'Cash-in credited twice by the partner bank' },
    reason: 'Duplicate credit confirmed by the partner bank',
  },
  FLOAT_FUNDING: {
    summary: "credit an agent's float account in a currency",
    payload: { agentId: '8a3f5c1e-7b2d-4f9a-a6e4-0c1b3d5f7a92', amount: 500_000, currency: 'XAF', reason: 'Weekly float top-up' },
    reason: 'Float top-up agreed with the agent network manager',
  },
  HOLD_PLACE: {
    summary: 'freeze an amount of an account',
    payload: { accountId: ACCOUNT_ID, amount: 25_000, currency: 'XAF', reason: 'Suspected account takeover, case 4411' },
    reason: 'Case 4411 opened by compliance',
  },
  HOLD_RELEASE: {
    summary: 'lift a hold (its account, amount and currency as the hold has them)',
    payload: {
      holdId: '3f1e2d4c-5b6a-4789-8abc-def012345678',
      accountId: ACCOUNT_ID,
      amount: 25_000,
      currency: 'XAF',
      reason: 'Case 4411 closed',
    },
    reason: 'The customer confirmed the payments',
  },
  CUSTOMER_UNFREEZE: {
    summary: 'let a frozen customer, merchant or agent sign in and pay again',
    payload: { userId: '5b0e1c8e-3f0a-4c55-9a57-1f1d3c0b9e21', reason: 'Identity confirmed at the branch' },
    reason: 'Identity confirmed at the branch, ticket 5120',
  },
  CONFIG_CHANGE: {
    summary: 'a new version of a configuration section (pricing, limits or risk), the whole section',
    payload: RISK_CHANGE_PAYLOAD,
    reason: 'Agreed with finance, ticket 4821',
  },
  PARTNER_KEY_ISSUE: {
    summary: 'a new API key for a partner integration (replacesKeyId and overlapSeconds to rotate one)',
    payload: { integrationId: '7c4e2a91-3b5d-4f6e-8a9b-0c1d2e3f4a5b', mode: 'live' },
    reason: 'Go-live approved by the partner manager',
  },
  PARTNER_KEY_REVOKE: {
    summary: 'revoke a partner API key',
    payload: { integrationId: '7c4e2a91-3b5d-4f6e-8a9b-0c1d2e3f4a5b', keyId: '9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a' },
    reason: 'Key exposed in a support ticket',
  },
  STAFF_ROLE_CHANGE: {
    summary: "change a staff member's or an agent's role",
    payload: { userId: '5b0e1c8e-3f0a-4c55-9a57-1f1d3c0b9e21', role: 'COMPLIANCE' },
    reason: 'Moved to the compliance team',
  },
  STAFF_TOTP_RESET: {
    summary: "remove a staff member's second factor, so that they enrol again",
    payload: { userId: '5b0e1c8e-3f0a-4c55-9a57-1f1d3c0b9e21', reason: 'Phone lost, identity checked in person' },
    reason: 'Phone lost, identity checked in person',
  },
  BLOCKLIST_REMOVE: {
    summary: 'lift a phone from the risk blocklist',
    payload: { entryId: '4e5f6a7b-8c9d-4e0f-a1b2-c3d4e5f6a7b8', reason: 'Listed by mistake' },
    reason: 'Listed by mistake, case 3907',
  },
  STAFF_CREATE: {
    summary: 'create a compliance officer or an administrator (no PIN: they set theirs by the PIN reset)',
    payload: {
      role: 'COMPLIANCE',
      phone: '+237690000077',
      firstName: 'Awa',
      lastName: 'Ndiaye',
      countryCode: 'CM',
      email: 'awa.ndiaye@example.com',
    },
    reason: 'Second compliance officer for the month-end reviews',
  },
  STAFF_DISABLE: {
    summary: "end a staff member's access (disabled, every session ended)",
    payload: { userId: '5b0e1c8e-3f0a-4c55-9a57-1f1d3c0b9e21', reason: 'Left the company on 27 November' },
    reason: 'Left the company on 27 November',
  },
  STAFF_ENABLE: {
    summary: 'let a disabled staff member sign in again',
    payload: { userId: '5b0e1c8e-3f0a-4c55-9a57-1f1d3c0b9e21', reason: 'Back from leave' },
    reason: 'Back from leave, confirmed by the manager',
  },
  WEBHOOK_SECRET_ROTATE: {
    summary: 'replace the live or test webhook signing secret of a partner integration (the maker collects the new one once)',
    payload: { integrationId: '7c4e2a91-3b5d-4f6e-8a9b-0c1d2e3f4a5b', mode: 'live' },
    reason: 'Secret pasted in a support ticket',
  },
  CASE_FREEZE: {
    summary:
      'close a compliance case with the decision FREEZE, freezing the person it is about (the maker is the assigned officer; expectedVersion is the case version it read)',
    payload: {
      caseId: '3f1c9a2e-5b7d-4e8f-9a0b-1c2d3e4f5a6b',
      reason: 'Structuring confirmed: five deposits under the threshold in a day',
      expectedVersion: 5,
    },
    reason: 'Structuring confirmed: five deposits under the threshold in a day',
  },
};

/** `examples` of the request body: one named example per action. */
export const SUBMIT_APPROVAL_EXAMPLES = Object.fromEntries(
  Object.entries(PAYLOADS).map(([action, { summary, payload, reason }]) => [
    action.toLowerCase().replace(/_/g, '-'),
    { summary: `${action}: ${summary}`, value: { action, payload, reason } },
  ]),
);

/**
 * The refusals of the actions' handlers when they check a submitted payload against what exists
 * (its account, agent, hold, person, integration, key, configuration version or blocklist entry),
 * and of the services they ask: the answers of the generic submit besides its own.
 */
export const SUBMIT_REFUSALS: ErrorCode[] = [
  'ACCOUNT_NOT_FOUND',
  'ACCOUNT_NOT_ALLOWED',
  'TRANSACTION_NOT_FOUND',
  'REVERSAL_OF_REVERSAL',
  'AGENT_NOT_FOUND',
  'AGENT_FLOAT_NOT_FOUND',
  'CURRENCY_MISMATCH',
  'HOLD_NOT_FOUND',
  'HOLD_ALREADY_RELEASED',
  'HOLD_MISMATCH',
  'PERSON_NOT_FOUND',
  'PERSON_NOT_FROZEN',
  'CUSTOMER_CLOSED',
  'USER_NOT_FOUND',
  'ROLE_CHANGE_NOT_ALLOWED',
  'SECOND_FACTOR_STAFF_ONLY',
  'PERSON_NOT_STAFF',
  'USER_ALREADY_EXISTS',
  'INTEGRATION_NOT_FOUND',
  'API_KEY_NOT_FOUND',
  'CONFLICT',
  'CONFIG_VERSION_CONFLICT',
  'BLOCKLIST_ENTRY_NOT_FOUND',
  'CASE_NOT_FOUND',
  'CASE_CLOSED',
  'CASE_DECISION_PENDING',
  'CASE_NOT_ASSIGNED_TO_YOU',
  'CASE_SUBJECT_ALREADY_FROZEN',
  'CASE_SUBJECT_NOT_FREEZABLE',
  'UPSTREAM_UNAVAILABLE',
  'UPSTREAM_TIMEOUT',
];
