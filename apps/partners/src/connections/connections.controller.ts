import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ConnectionDto, type ConnectionView, type Page } from '@mm/contracts';
import { ApiErrors } from '../common/api-errors';
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
      'Always 200 for a well-formed request, whether or not the phone belongs to a merchant (the answers cannot be told apart). The merchant sees the request and its scopes in clear in the app and accepts or rejects it; an unanswered request expires after 7 days. Test-mode requests never reach a merchant: activate them with POST /partners-public/test-helpers/connections/{id}/activate.',
  })
  @ApiOkResponse({ type: ConnectionRequestResultDto })
  @ApiErrors('VALIDATION_ERROR', 'INVALID_PHONE_FORMAT', 'INVALID_SCOPE')
  request(@CurrentPartner() partner: PartnerPrincipal, @Body() dto: RequestConnectionDto): Promise<ConnectionRequestResult> {
    return this.connections.request(partner, dto.merchantPhone, dto.scopes, dto.requestedReason);
  }

  @Get()
  @ApiOperation({ summary: "The integration's connections (of the key's mode), newest first" })
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
