import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ConnectionDto, type ConnectionView, type Page } from '@mm/contracts';
import { ApiErrors } from '@mm/platform';
import { PartnerApi } from '../common/public-api';
import { UuidParamPipe } from '../common/uuid-param.pipe';
import { CurrentPartner, type PartnerPrincipal } from '../keys/partner-principal';
import { ConnectionTransitions } from './connection-transitions.service';
import { toConnectionView } from './connection-row';
import { type ConnectionRequestResult, ConnectionsService } from './connections.service';
import { ConnectionListQueryDto, ConnectionPageDto, ConnectionRequestResultDto, RequestConnectionDto } from './dto/connection.dto';

/** A connection id that is not a UUID is answered exactly like an unknown one. */
const connectionId = () => new UuidParamPipe('id', 'CONNECTION_NOT_FOUND');

@ApiTags('connections')
@PartnerApi()
@Controller('partners-public/connections')
export class ConnectionsController {
  constructor(
    private readonly connections: ConnectionsService,
    private readonly transitions: ConnectionTransitions,
  ) {}

  @Post('request')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Asks a merchant (by phone) to connect with the given scopes',
    description:
      'Always 200 for a well-formed request, whether or not the phone belongs to a merchant (the answers cannot be told apart). The merchant sees the request and its scopes in clear in the app and accepts or rejects it; an unanswered request expires after 7 days. Test-mode requests never reach a merchant: activate them with POST /partners-public/test-helpers/connections/{id}/activate. ' +
      'Faulty fields: 400 VALIDATION_ERROR, with one entry per faulty field in `errors[]` whose `code` is the field code: merchantPhone → INVALID_PHONE_FORMAT, ' +
      'scopes → INVALID_SCOPES (not a list, empty or more than 10) or INVALID_SCOPE (an unknown scope), requestedReason → INVALID_REASON (not a string or over 500 characters), an unknown field → UNKNOWN_FIELD. ' +
      'The field codes listed under 400 below are such `errors[].code` values, never the top-level code. ' +
      'With a live key the merchant directory is asked: 502 UPSTREAM_UNAVAILABLE or 504 UPSTREAM_TIMEOUT when it cannot be reached (nothing was created; retry).',
  })
  @ApiOkResponse({ type: ConnectionRequestResultDto })
  // A route's own 400 replaces the class-wide one: MALFORMED_JSON is repeated here.
  @ApiErrors('VALIDATION_ERROR', 'MALFORMED_JSON', 'INVALID_PHONE_FORMAT', 'INVALID_SCOPE', 'UPSTREAM_UNAVAILABLE', 'UPSTREAM_TIMEOUT')
  request(@CurrentPartner() partner: PartnerPrincipal, @Body() dto: RequestConnectionDto): Promise<ConnectionRequestResult> {
    return this.connections.request(partner, dto.merchantPhone, dto.scopes, dto.requestedReason);
  }

  @Get()
  @ApiOperation({
    summary: "The integration's connections (of the key's mode), newest first",
    description:
      'A faulty query is 400 VALIDATION_ERROR whose `errors[].code` names the fault: status → INVALID_STATUS, limit → INVALID_LIMIT (not an integer from 1 to 100), cursor → INVALID_CURSOR (not a nextCursor of this API), an unknown parameter → UNKNOWN_FIELD.',
  })
  @ApiOkResponse({ type: ConnectionPageDto })
  @ApiErrors('VALIDATION_ERROR')
  list(@CurrentPartner() partner: PartnerPrincipal, @Query() query: ConnectionListQueryDto): Promise<Page<ConnectionView>> {
    return this.connections.listForIntegration(partner, query.status, query.cursor, query.limit ?? 20);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One connection', description: 'Unknown, foreign and malformed ids are all 404 CONNECTION_NOT_FOUND.' })
  @ApiOkResponse({ type: ConnectionDto })
  @ApiErrors('CONNECTION_NOT_FOUND')
  get(@CurrentPartner() partner: PartnerPrincipal, @Param('id', connectionId()) id: string): Promise<ConnectionView> {
    return this.connections.getForIntegration(partner, id);
  }

  @Post(':id/revoke')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Revokes a connection from the integration side',
    description:
      'active → revoked (revokedBy integration); a pending request can be withdrawn the same way. Answers the connection after the move. Revoking an already revoked connection answers it unchanged; an expired or rejected one is 409 CONFLICT.',
  })
  @ApiOkResponse({ type: ConnectionDto })
  @ApiErrors('CONNECTION_NOT_FOUND', 'CONFLICT')
  async revoke(@CurrentPartner() partner: PartnerPrincipal, @Param('id', connectionId()) id: string): Promise<ConnectionView> {
    const row = await this.transitions.move(id, 'revoke', {
      kind: 'integration',
      integrationId: partner.integrationId,
      livemode: partner.livemode,
    });
    return toConnectionView(row);
  }
}
