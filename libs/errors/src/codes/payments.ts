/** Public intent routes, confirm, withdrawal QR, history and receipts (orchestrator). Never rename or re-status a shipped code; append new ones. */
export const PAYMENTS_ERRORS = {
  // Who may start what
  INTENT_TYPE_NOT_ALLOWED: { status: 403, message: 'Your role cannot start this type of operation' },
  SELF_TRANSFER: { status: 400, message: 'The recipient is the initiator: an operation needs two different parties' },
  RECIPIENT_NOT_FOUND: { status: 400, message: 'No account matches the recipient' },
  RECIPIENT_NOT_ELIGIBLE: { status: 422, message: 'This recipient cannot take part in this type of operation' },
  CURRENCY_NOT_HELD: { status: 422, message: 'A party of this operation holds no account in this currency' },
  RECIPIENT_REQUIRED: { status: 400, message: 'Give the recipient: clientPhone, or qrToken where the type allows it' },

  // Steps of an intent
  OTP_NOT_REQUIRED: { status: 400, message: 'This intent does not need an OTP: verify the PIN directly' },
  INTENT_ATTEMPTS_EXHAUSTED: {
    status: 403,
    message: 'Too many wrong codes for this intent: it has failed and the held amount was released',
  },

  // QR codes
  WITHDRAWAL_QR_INVALID: { status: 400, message: 'The withdrawal code is unknown, expired or already used' },
  WITHDRAWAL_QR_AMOUNT_MISMATCH: { status: 422, message: 'The amount differs from the one the customer set in the withdrawal code' },
  ORDER_NOT_PAYABLE: { status: 422, message: 'This order can no longer be paid' },
  ORDER_AMOUNT_MISMATCH: { status: 422, message: 'The amount or currency differs from the order behind this QR code' },
  QR_NOT_ALLOWED: { status: 400, message: 'This type of operation does not take a QR code' },
} as const satisfies Record<string, { status: number; message: string }>;
