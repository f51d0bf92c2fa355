import 'reflect-metadata';
import { plainToInstance, Type } from 'class-transformer';
import { IsArray, IsIn, IsInt, IsString, MaxLength, Min, ValidateNested, validateSync } from 'class-validator';
import { OptionalField, validationExceptionFactory } from './validation';

class Item {
  @IsInt({ context: { code: 'INVALID_AMOUNT' } })
  @Min(1, { context: { code: 'INVALID_AMOUNT' } })
  amount: number;
}
class Address {
  @IsString()
  city: string;
}
class Order {
  @IsIn(['XAF', 'XOF'])
  currency: string;
  @OptionalField()
  @MaxLength(5)
  note?: string;
  @ValidateNested()
  @Type(() => Address)
  address: Address;
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => Item)
  items: Item[];
}

function validate(plain: object) {
  const errors = validateSync(plainToInstance(Order, plain), { whitelist: true, forbidNonWhitelisted: true });
  return validationExceptionFactory(errors);
}

describe('validationExceptionFactory', () => {
  it('gives one errors[] entry per faulty field, nested and array paths included', () => {
    const e = validate({
      currency: 'USD',
      note: 'too long',
      address: { city: 7 },
      items: [{ amount: 5 }, { amount: -1 }, { amount: 'x' }],
      hack: 1,
    });
    expect(e.code).toBe('VALIDATION_ERROR');
    expect(e.status).toBe(400);
    expect(e.errors?.map((x) => [x.field, x.code])).toEqual(
      expect.arrayContaining([
        ['currency', 'INVALID_IN'],
        ['note', 'INVALID_MAX_LENGTH'],
        ['address.city', 'INVALID_STRING'],
        ['items[1].amount', 'INVALID_AMOUNT'],
        ['items[2].amount', 'INVALID_AMOUNT'],
        ['hack', 'UNKNOWN_FIELD'],
      ]),
    );
    expect(e.errors).toHaveLength(6);
    expect(e.message).toMatch(/^[a-z.[\]0-9]+: /);
  });

  it('passes a valid body', () => {
    expect(validateSync(plainToInstance(Order, { currency: 'XAF', address: { city: 'Douala' }, items: [{ amount: 1 }] }))).toEqual([]);
  });
});
