import { Body, Controller, Get, Headers, HttpCode, Param, Post, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiHeader, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { ApiErrors } from '@mm/platform';
import { PartnerApi } from '../common/public-api';
import { UuidParamPipe } from '../common/uuid-param.pipe';
import { CurrentPartner, type PartnerPrincipal } from '../keys/partner-principal';
import { CreateOrderDto, OrderDto } from './dto/create-order.dto';
import { checkIdempotencyKey } from './order-idempotency';
import type { OrderView } from './order-row';
import { OrdersService } from './orders.service';

const VALIDATION_RULE =
  'Validation rule: a request with one or more faulty fields is answered 400 with the top-level code VALIDATION_ERROR and one entry per faulty field in `errors[]`; ' +
  "each entry's `code` is the specific code of the partner API's error table " +
  '(docs/partners.md "7. All error codes") when there is one: amount → INVALID_AMOUNT (not an integer, 0 or less, above 2^53−1), ' +
  'ttlSeconds → INVALID_TTL (below 60 or not an integer) or TTL_TOO_LONG (above 900), merchantId → INVALID_UUID, currencyCode → UNSUPPORTED_CURRENCY, ' +
  'description → INVALID_DESCRIPTION, externalReference → INVALID_EXTERNAL_REFERENCE, an unknown field → UNKNOWN_FIELD, a malformed Idempotency-Key header → INVALID_IDEMPOTENCY_KEY (field Idempotency-Key). ' +
  'So the specific code is always in `errors[].code`: the field codes listed under 400 below (INVALID_AMOUNT, INVALID_TTL, TTL_TOO_LONG) are such values, never the top-level code.';

@ApiTags('orders')
@PartnerApi()
@Controller('partners-public/orders')
export class OrdersController {
  constructor(private readonly orders: OrdersService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({
    summary: "Creates a payment order (a QR to show to the payer) in a connected merchant's name",
    description:
      'Needs an active connection to merchantId with the scope orders.write (403 NO_ACTIVE_CONNECTION, 403 MISSING_SCOPE). ' +
      'The order is pending until paid (order.paid webhook, status paid) or until it expires (order.expired, status expired, shortly after expiresAt). ' +
      `${VALIDATION_RULE} ` +
      'Idempotency-Key (optional, recommended): the same key with the same body within 24 h returns the same order, byte for byte (header Idempotent-Replayed: true); ' +
      'the same key with another body is 422 IDEMPOTENCY_KEY_CONFLICT; 409 IDEMPOTENCY_KEY_IN_PROGRESS when the first request with the key cannot be read back (it expired meanwhile): retry. Refused requests are not remembered and can be retried with the same key. ' +
      "With a live key the merchant's account is looked up in the merchant directory: 502 UPSTREAM_UNAVAILABLE or 504 UPSTREAM_TIMEOUT when it cannot be reached (nothing was created, the key was not used; retry).",
  })
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$', example: '7c0e4f9a-1b2d-4e3f-8a5b-6c7d8e9f0a1b' },
    description: '1–255 printable ASCII characters without spaces (! to ~); a UUID v4 is a good choice',
  })
  @ApiCreatedResponse({ type: OrderDto })
  // A route's own 400 replaces the class-wide one: MALFORMED_JSON is repeated here.
  @ApiErrors(
    'VALIDATION_ERROR',
    'MALFORMED_JSON',
    'INVALID_AMOUNT',
    'INVALID_TTL',
    'TTL_TOO_LONG',
    'NO_ACTIVE_CONNECTION',
    'MISSING_SCOPE',
    'IDEMPOTENCY_KEY_CONFLICT',
    'IDEMPOTENCY_KEY_IN_PROGRESS',
    'MERCHANT_UNAVAILABLE',
    'MERCHANT_CURRENCY_UNAVAILABLE',
    'UPSTREAM_UNAVAILABLE',
    'UPSTREAM_TIMEOUT',
  )
  async create(
    @CurrentPartner() partner: PartnerPrincipal,
    @Body() dto: CreateOrderDto,
    @Headers('idempotency-key') rawKey: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    const key = checkIdempotencyKey(rawKey);
    const result = await this.orders.create(partner, dto, key);
    // The body is sent as stored, so a replay is byte-identical to the first answer.
    void reply.type('application/json; charset=utf-8');
    if (result.replayed) void reply.header('idempotent-replayed', 'true');
    return result.body;
  }

  @Get(':orderId')
  @ApiOperation({
    summary: "One of the integration's orders (needs the scope orders.read on the active connection)",
    description: 'Unknown, foreign and malformed ids are all 404 ORDER_NOT_FOUND.',
  })
  @ApiOkResponse({ type: OrderDto })
  @ApiErrors('ORDER_NOT_FOUND', 'NO_ACTIVE_CONNECTION', 'MISSING_SCOPE')
  get(
    @CurrentPartner() partner: PartnerPrincipal,
    @Param('orderId', new UuidParamPipe('orderId', 'ORDER_NOT_FOUND')) orderId: string,
  ): Promise<OrderView> {
    return this.orders.get(partner, orderId);
  }
}
