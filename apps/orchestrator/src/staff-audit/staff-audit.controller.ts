import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '../access/permissions';
import { ApiAdminRoute, ApiErrors } from '../config-api/api-errors';
import { AuditedRead } from './audit-metadata';
import { AuditTrailQueryDto } from './dto/audit-trail-query.dto';
import { StaffAuditStore } from './staff-audit.store';
import { AuditChainCheckView, AuditTrailPageView } from './staff-audit.views';

/**
 * The staff audit trail, for compliance officers, administrators and auditors. Both reads are
 * themselves recorded in the trail.
 */
@ApiTags('audit-trail')
@Controller('backoffice/audit-trail')
export class StaffAuditController {
  constructor(private readonly store: StaffAuditStore) {}

  @Get()
  @RequirePermission('audit.read')
  @ApiAdminRoute('audit.read')
  @AuditedRead({ type: 'audit-trail' })
  @ApiOperation({
    summary: 'Search the staff audit trail',
    description:
      'Every staff write and every staff read of a person’s data, newest first, filtered by actor, role, action, target, time, ' +
      'outcome or request id. Pages by `cursor` (the `nextCursor` of the page before).',
  })
  @ApiOkResponse({ type: AuditTrailPageView })
  @ApiErrors('VALIDATION_ERROR', 'AUDIT_TRAIL_UNAVAILABLE')
  search(@Query() query: AuditTrailQueryDto): Promise<AuditTrailPageView> {
    return this.store.search(query);
  }

  @Get('verify')
  @RequirePermission('audit.read')
  @ApiAdminRoute('audit.read')
  @AuditedRead({ type: 'audit-trail' })
  @ApiOperation({
    summary: 'Check the hash chain of the staff audit trail',
    description:
      'Walks every record in order and checks that none is missing (seq 1, 2, 3… up to the count the chain head keeps), that each ' +
      'links to the one before, and that each hash is the hash of its content. `firstBroken` names the first record found ' +
      'deleted or altered. Reads the whole trail: seconds on a long one.',
  })
  @ApiOkResponse({ type: AuditChainCheckView })
  @ApiErrors('AUDIT_TRAIL_UNAVAILABLE')
  verify(): Promise<AuditChainCheckView> {
    return this.store.verify();
  }
}
