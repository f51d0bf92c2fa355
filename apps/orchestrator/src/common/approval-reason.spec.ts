import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { flattenValidationErrors } from '@mm/errors';
import { ApprovalReason, isApprovalReason, storedLength } from './approval-reason';

class Body {
  @ApprovalReason()
  reason: string;
}

const fieldErrors = (reason: unknown) => flattenValidationErrors(validateSync(plainToInstance(Body, { reason })));

describe('ApprovalReason: the bounds of approval_requests.reason', () => {
  it('accepts 3 to 500 characters', () => {
    for (const ok of ['abc', 'x'.repeat(500), ' a ', '❤️❤️', 'é'.repeat(500)]) expect(fieldErrors(ok)).toEqual([]);
  });

  it('refuses what the CHECK would refuse, or blanks, with INVALID_REASON', () => {
    for (const bad of ['', 'x', 'ab', '   ', 'x'.repeat(501), 7, null, undefined]) {
      expect(fieldErrors(bad)).toEqual([expect.objectContaining({ field: 'reason', code: 'INVALID_REASON' })]);
    }
  });

  it('counts characters as PostgreSQL does (code points), not as class-validator does', () => {
    // class-validator's MaxLength(500) lets these through; PostgreSQL counts 502 and 1 000 characters
    const heart = '❤️'; // U+2764 U+FE0F
    expect(storedLength(heart.repeat(251))).toBe(502);
    expect(fieldErrors(heart.repeat(251))[0]).toMatchObject({ code: 'INVALID_REASON' });
    expect(fieldErrors('😀'.repeat(500))).toEqual([]);
    expect(fieldErrors('😀'.repeat(501))[0]).toMatchObject({ code: 'INVALID_REASON' });
    expect(isApprovalReason('😀😀')).toBe(false);
    expect(isApprovalReason('😀😀😀')).toBe(true);
  });
});
