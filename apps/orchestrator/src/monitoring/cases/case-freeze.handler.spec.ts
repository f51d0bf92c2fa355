import { ApprovalRegistry } from '../../approvals/approval-registry';
import type { OrchestratorConfig } from '../../orchestrator.config';
import { CaseFreezeHandler } from './case-freeze.handler';

const CASE_ID = '3F1C9A2E-5B7D-4E8F-9A0B-1C2D3E4F5A6B';

// parse and the registration touch none of the handler's collaborators
const handler = () => new CaseFreezeHandler(null as never, null as never, null as never);
const registry = (onePerson: string[]) =>
  new ApprovalRegistry({ APPROVALS_ONE_PERSON_ACTIONS: onePerson } as unknown as OrchestratorConfig);

describe('CASE_FREEZE', () => {
  it('can never be made a one-person action: the app refuses to start when APPROVALS_ONE_PERSON_ACTIONS lists it', () => {
    expect(() => registry(['CASE_FREEZE']).register(handler())).toThrow(/APPROVALS_ONE_PERSON_ACTIONS lists CASE_FREEZE/);
    expect(() => registry(['CONFIG_CHANGE']).register(handler())).not.toThrow();
  });

  it('carries the case version the officer decided on', () => {
    expect(handler().parse({ caseId: CASE_ID, reason: 'Structuring confirmed', expectedVersion: 4 })).toEqual({
      caseId: CASE_ID.toLowerCase(),
      reason: 'Structuring confirmed',
      expectedVersion: 4,
    });
  });

  it.each([
    [{ caseId: CASE_ID, reason: 'Structuring confirmed' }, [['payload.expectedVersion', 'REQUIRED']]],
    [{ caseId: CASE_ID, reason: 'Structuring confirmed', expectedVersion: '4' }, [['payload.expectedVersion', 'INVALID_VERSION']]],
    [{ caseId: CASE_ID, reason: 'Structuring confirmed', expectedVersion: -1 }, [['payload.expectedVersion', 'INVALID_VERSION']]],
    [{ caseId: CASE_ID, reason: 'Structuring confirmed', expectedVersion: 1.5 }, [['payload.expectedVersion', 'INVALID_VERSION']]],
    [
      { caseId: 'nope', reason: 'Structuring confirmed', expectedVersion: null },
      [
        ['payload.caseId', 'INVALID_UUID'],
        ['payload.expectedVersion', 'INVALID_VERSION'],
      ],
    ],
    [
      { caseId: CASE_ID, reason: 'ok', expectedVersion: 2, extra: 1 },
      [
        ['payload.reason', 'INVALID_REASON'],
        ['payload.extra', 'UNKNOWN_FIELD'],
      ],
    ],
  ])('refuses %j with the field codes', (payload, expected) => {
    let thrown: { code?: string; errors?: Array<{ field: string; code: string }> } = {};
    try {
      handler().parse(payload);
    } catch (error) {
      thrown = error as typeof thrown;
    }
    expect(thrown.code).toBe('VALIDATION_ERROR');
    expect(thrown.errors?.map((e) => [e.field, e.code])).toEqual(expected);
  });
});
