import { AppException } from '@mm/errors';
import { LedgerWalletsConfig } from '../ledger-wallets.config';
import { checkCommissionBounds } from './commission-bounds';

const codeOf = (fn: () => void): string | undefined => {
  try {
    fn();
    return undefined;
  } catch (error) {
    return error instanceof AppException ? error.code : 'not an AppException';
  }
};

describe('checkCommissionBounds', () => {
  const ceiling = new LedgerWalletsConfig().LEDGER_COMMISSION_MAX_PER_OPERATION;

  it('has a documented default ceiling of 100 000 per operation', () => {
    expect(ceiling).toBe(100_000);
  });

  it('accepts no commission, and a commission up to the amount and the ceiling (both inclusive)', () => {
    expect(codeOf(() => checkCommissionBounds(100, 0, ceiling))).toBeUndefined();
    expect(codeOf(() => checkCommissionBounds(100, 100, ceiling))).toBeUndefined();
    expect(codeOf(() => checkCommissionBounds(2_000_000, ceiling, ceiling))).toBeUndefined();
  });

  it('refuses a commission above the amount, or above the ceiling, with COMMISSION_OUT_OF_RANGE', () => {
    expect(codeOf(() => checkCommissionBounds(100, 4_000_000_000_000_000, ceiling))).toBe('COMMISSION_OUT_OF_RANGE');
    expect(codeOf(() => checkCommissionBounds(100, 101, ceiling))).toBe('COMMISSION_OUT_OF_RANGE');
    expect(codeOf(() => checkCommissionBounds(2_000_000, ceiling + 1, ceiling))).toBe('COMMISSION_OUT_OF_RANGE');
  });
});
