import { ApiBody } from '@nestjs/swagger';
import { withArticle } from '@mm/platform';
import { CreateStaffDto, RegisterAdminDto, RegisterAgentDto, RegisterDto, RegisterMerchantDto } from './register.dto';

/**
 * One whole example body per kind of registration. The per-field examples would give every kind
 * the same phone and the same clientRequestId, so a client trying the documented examples one after
 * the other would meet 422 IDEMPOTENCY_KEY_CONFLICT (one key, two bodies) instead of a registration.
 * The deprecated twin of a route shows the same body: sent again it is a replay, answered alike.
 */
const person = (phone: string, clientRequestId: string, firstName: string) => ({
  phone,
  pin: '2580',
  firstName,
  lastName: 'Nkoulou',
  countryCode: 'CM',
  email: `${firstName.toLowerCase()}@example.cm`,
  clientRequestId,
});

const EXAMPLES = {
  customer: { type: RegisterDto, value: person('+237690000101', 'b6a1d7e4-2c3f-4a5b-8c9d-0e1f2a3b4c01', 'Awa') },
  merchant: {
    type: RegisterMerchantDto,
    value: {
      ...person('+237690000102', 'b6a1d7e4-2c3f-4a5b-8c9d-0e1f2a3b4c02', 'Paul'),
      businessName: 'Boulangerie du Centre',
      category: 'FOOD_AND_DRINK',
    },
  },
  agent: { type: RegisterAgentDto, value: person('+237690000103', 'b6a1d7e4-2c3f-4a5b-8c9d-0e1f2a3b4c03', 'Marie') },
  admin: { type: RegisterAdminDto, value: person('+237690000104', 'b6a1d7e4-2c3f-4a5b-8c9d-0e1f2a3b4c04', 'Ngono') },
  staff: {
    type: CreateStaffDto,
    value: { ...person('+237690000105', 'b6a1d7e4-2c3f-4a5b-8c9d-0e1f2a3b4c05', 'Eric'), role: 'SUPPORT' },
  },
} as const;

/** `@ApiBody` of a registration route, with the whole example of its kind. */
export function ApiRegistrationBody(kind: keyof typeof EXAMPLES): MethodDecorator {
  const { type, value } = EXAMPLES[kind];
  return ApiBody({ type, examples: { [kind]: { summary: `${withArticle(kind)} registration`, value } } });
}
