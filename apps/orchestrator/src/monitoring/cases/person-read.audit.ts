import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { AppException } from '@mm/errors';
import { currentContext } from '@mm/platform';
import type { AuthUser } from '../../access/permissions';
import { buildEntry } from '../../staff-audit/audit-record';
import { StaffAuditStore } from '../../staff-audit/staff-audit.store';

/** The evidence route as the staff audit trail names it (`handlerName` of MonitoringController.evidence). */
const EVIDENCE_ROUTE = '/api/v1/compliance/cases/:caseId/evidence';

/**
 * The staff audit trail names the case of every officer's write, but a PERSON_360 piece of evidence
 * is also a read of a person's 360 view, and that person may be anyone, not only the case's subject.
 * So the read gets its own record, under the request's id, naming the person (target `person`) with
 * the case in its details, as a read of the 360 route would be recorded. Written before the snapshot
 * is kept: if the trail cannot record it, the evidence is refused (503 AUDIT_TRAIL_UNAVAILABLE) and
 * nothing is stored, since a person's data is never handed out unrecorded.
 */
@Injectable()
export class PersonReadAudit {
  private readonly logger = new Logger(PersonReadAudit.name);

  constructor(private readonly trail: StaffAuditStore) {}

  async record(caseId: string, personId: string, user: AuthUser): Promise<void> {
    const entry = buildEntry(
      { userId: user.userId, role: user.role },
      {
        method: 'POST',
        route: EVIDENCE_ROUTE,
        params: { caseId },
        query: {},
        body: { userId: personId },
        requestId: currentContext()?.requestId ?? randomUUID(),
        tag: { name: 'monitoring.evidence', target: { type: 'person', body: 'userId' } },
      },
      { status: 200, payload: null },
    );
    try {
      await this.trail.append({ ...entry, details: { ...entry.details, read: 'PERSON_360' } });
    } catch (err) {
      this.logger.error({ msg: 'staff audit record of a 360 read not written: evidence refused', err, audit: entry });
      throw new AppException(
        'AUDIT_TRAIL_UNAVAILABLE',
        'The staff audit trail could not record the read of the 360 view: no evidence was kept',
      );
    }
  }
}
