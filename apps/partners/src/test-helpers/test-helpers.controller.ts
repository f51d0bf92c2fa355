import { Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ConnectionDto, type ConnectionView } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { ApiErrors } from '@mm/platform';
import { PartnerApi } from '../common/public-api';
import { UuidParamPipe } from '../common/uuid-param.pipe';
import { ConnectionTransitions } from '../connections/connection-transitions.service';
import { toConnectionView } from '../connections/connection-row';
import { CurrentPartner, type PartnerPrincipal } from '../keys/partner-principal';
import { OrderDto } from '../orders/dto/create-order.dto';
import type { OrderView } from '../orders/order-row';
import { OrderPaymentService } from '../payments/order-payment.service';

function testModeOnly(partner: PartnerPrincipal): void {
  if (partner.livemode) throw new AppException('TEST_MODE_ONLY');
}

/**
 * Test mode only (a `svc_sk_test_` key): play the merchant's and the payer's part, so a partner
 * can exercise its whole integration — webhooks included, signed with the test secret — without a
 * merchant and without money.
 */
@ApiTags('test helpers')
@PartnerApi()
@ApiErrors('TEST_MODE_ONLY')
@Controller('partners-public/test-helpers')
export class TestHelpersController {
  constructor(
    private readonly transitions: ConnectionTransitions,
    private readonly payments: OrderPaymentService,
  ) {}

  @Post('connections/:id/activate')
  @HttpCode(200)
  @ApiOperation({ summary: 'Accepts a pending test-mode connection as its merchant would (sends connection.activated)' })
  @ApiOkResponse({ type: ConnectionDto })
  @ApiErrors('CONNECTION_NOT_FOUND', 'CONFLICT')
  async activate(
    @CurrentPartner() partner: PartnerPrincipal,
    @Param('id', new UuidParamPipe('id', 'CONNECTION_NOT_FOUND')) id: string,
  ): Promise<ConnectionView> {
    testModeOnly(partner);
    return toConnectionView(
      await this.transitions.move(id, 'accept', { kind: 'integration', integrationId: partner.integrationId, livemode: false }),
    );
  }

  @Post('orders/:orderId/pay')
  @HttpCode(200)
  @ApiOperation({ summary: 'Marks a pending test-mode order paid as if a customer had paid it (sends order.paid)' })
  @ApiOkResponse({ type: OrderDto })
  @ApiErrors('ORDER_NOT_FOUND', 'CONFLICT', 'ORDER_NOT_PAYABLE')
  pay(
    @CurrentPartner() partner: PartnerPrincipal,
    @Param('orderId', new UuidParamPipe('orderId', 'ORDER_NOT_FOUND')) orderId: string,
  ): Promise<OrderView> {
    testModeOnly(partner);
    return this.payments.payTestOrder(partner, orderId);
  }
}
