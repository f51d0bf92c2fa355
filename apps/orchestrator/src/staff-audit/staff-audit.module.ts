import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AuditRouteTagger } from './audit-route-tag.guard';
import { StaffAuditController } from './staff-audit.controller';
import { StaffAuditRecorder } from './staff-audit.recorder';
import { StaffAuditStore } from './staff-audit.store';

/**
 * The staff audit trail. Imported by the root module BEFORE AccessModule: global guards run in the
 * order they are registered, and the route tagger must run before the access guard can refuse.
 */
@Module({
  controllers: [StaffAuditController],
  providers: [StaffAuditStore, StaffAuditRecorder, { provide: APP_GUARD, useClass: AuditRouteTagger }],
})
export class StaffAuditModule {}
