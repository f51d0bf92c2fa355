import { plainToInstance } from 'class-transformer';
import { IsIn, IsString, IsUUID, Matches, MaxLength, MinLength, ValidateIf, validateSync } from 'class-validator';
import { type Currency, SUPPORTED_CURRENCIES } from '@mm/contracts';
import { AppException, flattenValidationErrors } from '@mm/errors';
import { IsMoney } from '../../common/operation-type';

/**
 * The payloads the maker-checker engine stores for the ledger actions: exactly what will be carried
 * out. The routes build them (resolving what the caller may leave out, e.g. the account's currency);
 * each handler's `parse` validates them again, field by field, as any request body is.
 */

/** An id as the ledger and the orchestrator write them (any case accepted). */
export const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** An agent code: AG and 8 digits. */
export const AGENT_CODE = /^AG\d{8}$/;

/** A ledger transaction reference (`MMPTX261126K7Q2M9Z`: prefix, TX, date, 7 characters). */
export const REFERENCE_PATTERN = /^[A-Z]{3}TX\d{6}[A-Z0-9]{7}$/;

function Reason(): PropertyDecorator {
  return (target, key) => {
    IsString()(target, key);
    MinLength(3)(target, key);
    MaxLength(500)(target, key);
  };
}

export class CorrectionPayload {
  @IsUUID()
  accountId: string;

  @IsIn(['CREDIT', 'DEBIT'])
  direction: 'CREDIT' | 'DEBIT';

  @IsMoney(1)
  amount: number;

  @IsIn(SUPPORTED_CURRENCIES)
  currency: Currency;

  @Reason()
  reason: string;
}

export class ReversalPayload {
  @ValidateIf((o: ReversalPayload) => o.transactionId === undefined)
  @IsString()
  @Matches(REFERENCE_PATTERN, { message: 'referenceId must be a ledger reference (e.g. MMPTX261126K7Q2M9Z)' })
  referenceId?: string;

  @ValidateIf((o: ReversalPayload) => o.referenceId === undefined)
  @IsUUID()
  transactionId?: string;

  @Reason()
  reason: string;
}

export class FloatFundingPayload {
  @IsUUID()
  agentId: string;

  @IsMoney(1)
  amount: number;

  @IsIn(SUPPORTED_CURRENCIES)
  currency: Currency;

  @Reason()
  reason: string;
}

export class HoldPlacePayload {
  @IsUUID()
  accountId: string;

  @IsMoney(1)
  amount: number;

  @IsIn(SUPPORTED_CURRENCIES)
  currency: Currency;

  @Reason()
  reason: string;
}

export class HoldReleasePayload {
  @IsUUID()
  holdId: string;

  @IsUUID()
  accountId: string;

  @IsMoney(1)
  amount: number;

  @IsIn(SUPPORTED_CURRENCIES)
  currency: Currency;

  @Reason()
  reason: string;
}

/** A field of the payload as the request body names it (`payload.agentId`), like every other action's handler. */
const inPayload = (field: string): string => `payload.${field}`;

/**
 * The payload as an instance of `type`, or 400 VALIDATION_ERROR with one entry per faulty field
 * (unknown fields refused), each named under `payload.` as the submitted body holds it.
 */
export function parsePayload<T extends object>(type: new () => T, payload: unknown): T {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    throw new AppException('VALIDATION_ERROR', 'The payload must be a JSON object', {
      errors: [{ field: 'payload', code: 'INVALID_OBJECT', message: 'must be a JSON object' }],
    });
  }
  const instance = plainToInstance(type, payload);
  const errors = validateSync(instance, { whitelist: true, forbidNonWhitelisted: true, validationError: { target: false, value: false } });
  if (errors.length > 0) {
    const fields = flattenValidationErrors(errors).map((error) => ({ ...error, field: inPayload(error.field) }));
    throw new AppException('VALIDATION_ERROR', fields.map((error) => `${error.field}: ${error.message}`).join('; '), { errors: fields });
  }
  if (instance instanceof ReversalPayload && instance.referenceId !== undefined && instance.transactionId !== undefined) {
    throw new AppException('VALIDATION_ERROR', 'A reversal names its transaction once: referenceId or transactionId, not both', {
      errors: [
        { field: inPayload('transactionId'), code: 'NAMES_TRANSACTION_ONCE', message: 'give referenceId or transactionId, not both' },
      ],
    });
  }
  return { ...instance } as T;
}
