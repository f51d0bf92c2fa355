import { Module } from '@nestjs/common';
import { APP_INTERCEPTOR, DiscoveryModule } from '@nestjs/core';
import { StaffAuditController } from './staff-audit.controller';
import { StaffAuditAnchors } from './staff-audit-anchors';
import { StaffAuditStartInterceptor } from './staff-audit.interceptor';
import { StaffAuditRecorder } from './staff-audit.recorder';
import { StaffAuditStore } from './staff-audit.store';

/**
 * The staff audit trail. Its place among the root module's imports does not matter: routes are
 * tagged through their Fastify config (audit-route-tag.ts), and the started record is written by
 * an interceptor, which runs after every guard.
 */
@Module({
  imports: [DiscoveryModule],
  controllers: [StaffAuditController],
  providers: [StaffAuditStore, StaffAuditRecorder, StaffAuditAnchors, { provide: APP_INTERCEPTOR, useClass: StaffAuditStartInterceptor }],
})
export class StaffAuditModule {}
