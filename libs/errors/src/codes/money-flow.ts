/** Public money flow: intents, fees, limits, risk, history (orchestrator). Never rename or re-status a shipped code; append new ones. */
export const MONEY_FLOW_ERRORS = {
  // Versioned configuration (fee, commission, limit and risk grids)
  CONFIG_VERSION_CONFLICT: {
    status: 409,
    message: 'The configuration changed since the version this change was based on; read it again and retry',
  },
  CONFIG_VERSION_NOT_FOUND: { status: 404, message: 'Configuration version not found' },

  // Pricing
  QUOTE_NOT_FOUND: { status: 404, message: 'Fee quote not found' },
  PRICING_UNAVAILABLE: { status: 422, message: 'No fee grid applies to this operation' },

  // Amount bounds per operation type (limits). Each refusal names its limit; the message states the allowed amount
  // and the X-Limit-Remaining header carries it as an integer.
  AMOUNT_BELOW_MINIMUM: { status: 422, message: 'The amount is below the minimum for this operation' },
  AMOUNT_ABOVE_MAXIMUM: { status: 422, message: 'The amount is above the maximum for this operation' },
  // Customer limits per KYC tier
  LIMIT_SINGLE_OPERATION_EXCEEDED: { status: 422, message: 'The amount exceeds the single-operation limit of the account' },
  LIMIT_DAILY_EXCEEDED: { status: 422, message: 'The amount exceeds what the account may still move today' },
  LIMIT_MONTHLY_EXCEEDED: { status: 422, message: 'The amount exceeds what the account may still move this month' },
  LIMIT_BALANCE_CAP_EXCEEDED: { status: 422, message: 'The recipient balance would exceed the cap of its account' },
  // Agent ceilings
  AGENT_OPERATION_CEILING_EXCEEDED: { status: 422, message: 'The amount exceeds the agent ceiling per operation' },
  AGENT_DAILY_CEILING_EXCEEDED: { status: 422, message: 'The amount exceeds what the agent may still handle today' },

  // Risk: the reason code travels in the X-Risk-Reason header; the rules themselves are never disclosed.
  RISK_REJECTED: { status: 403, message: 'The operation was refused by risk controls' },
  BLOCKLIST_ENTRY_EXISTS: { status: 409, message: 'This phone number is already on the blocklist' },
  BLOCKLIST_ENTRY_NOT_FOUND: { status: 404, message: 'Blocklist entry not found or already removed' },
  RISK_DECISION_NOT_FOUND: { status: 404, message: 'Risk decision not found' },
} as const satisfies Record<string, { status: number; message: string }>;
