import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '../access/permissions';
import { ApiAdminRoute, ApiErrors } from '../common/api-errors';
import { AuditedRead } from './audit-metadata';
import { AuditTrailQueryDto } from './dto/audit-trail-query.dto';
import { VerifyChainQueryDto } from './dto/verify-chain-query.dto';
import { StaffAuditAnchors } from './staff-audit-anchors';
import { StaffAuditStore } from './staff-audit.store';
import { AuditChainCheckView, AuditTrailPageView } from './staff-audit.views';

/**
 * The staff audit trail, for compliance officers, administrators and auditors. Both reads are
 * themselves recorded in the trail.
 */
@ApiTags('audit-trail')
@Controller('backoffice/audit-trail')
export class StaffAuditController {
  constructor(
    private readonly store: StaffAuditStore,
    private readonly anchors: StaffAuditAnchors,
  ) {}

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
      'First checks every anchor (a seq and hash the orchestrator signed with a key the database never sees): its signature, ' +
      'and that the record it names is still in the trail with that hash. Then walks every record (or, on request, only those ' +
      'from `fromSeq`, or after the last anchor with `full=false`, which is quicker but cannot see a record deleted or edited ' +
      'below the last anchor whose anchored record is intact): none missing up to the count the chain head keeps, each linked to the one ' +
      'before, each hash the hash of its content. `firstBroken` names the first problem. When everything since the last anchor ' +
      'is intact, the head is anchored (`anchored`).',
  })
  @ApiOkResponse({ type: AuditChainCheckView })
  @ApiErrors('VALIDATION_ERROR', 'AUDIT_TRAIL_UNAVAILABLE')
  verify(@Query() query: VerifyChainQueryDto): Promise<AuditChainCheckView> {
    // The whole trail by default: a walk from the last anchor alone would miss a deletion below it.
    const full = query.full === undefined ? query.fromSeq === undefined : query.full === 'true';
    return this.anchors.check({ full, fromSeq: query.fromSeq === undefined ? undefined : Number(query.fromSeq) });
  }
}
