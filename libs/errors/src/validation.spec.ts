import 'reflect-metadata';
import { plainToInstance, Type } from 'class-transformer';
import {
  IsArray,
  IsDefined,
  IsIn,
  IsInt,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateNested,
  getMetadataStorage,
  validateSync,
} from 'class-validator';
import { NULLABLE_FIELD, NullableField, OPTIONAL_FIELD, OptionalField, validationExceptionFactory } from './validation';

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

class Profile {
  @OptionalField()
  @IsString()
  @MaxLength(5)
  firstName?: string;

  @NullableField()
  @IsString()
  email?: string | null;

  @OptionalField()
  @IsInt({ context: { code: 'INVALID_LIMIT' } })
  @Min(1, { context: { code: 'INVALID_LIMIT' } })
  @Max(100, { context: { code: 'INVALID_LIMIT' } })
  limit?: number;

  @IsDefined()
  @IsString()
  @MaxLength(3)
  id: string;
}

function check(plain: object) {
  const errors = validateSync(plainToInstance(Profile, plain), { whitelist: true, forbidNonWhitelisted: true });
  return errors.length === 0 ? undefined : validationExceptionFactory(errors);
}

describe('OptionalField and NullableField', () => {
  it('OptionalField: absent passes, an explicit null is refused with the field code', () => {
    expect(check({ id: 'u' })).toBeUndefined();
    expect(check({ id: 'u', firstName: null })?.errors).toEqual([
      { field: 'firstName', code: 'INVALID_STRING', message: expect.any(String) },
    ]);
    expect(check({ id: 'u', limit: null })?.errors).toEqual([{ field: 'limit', code: 'INVALID_LIMIT', message: expect.any(String) }]);
  });

  it('NullableField: absent and null pass, any other value is still checked', () => {
    expect(check({ id: 'u', email: null })).toBeUndefined();
    expect(check({ id: 'u', email: 7 })?.errors).toEqual([{ field: 'email', code: 'INVALID_STRING', message: expect.any(String) }]);
  });

  it('registers class-validator conditional metadata named optionalField / nullableField (the OpenAPI generator reads them)', () => {
    const metadata = getMetadataStorage().getTargetValidationMetadatas(Profile, '', false, false);
    const presence = (property: string) =>
      metadata.filter((m) => m.propertyName === property && m.type === 'conditionalValidation').map((m) => m.name);
    expect([OPTIONAL_FIELD, NULLABLE_FIELD]).toEqual(['optionalField', 'nullableField']);
    expect(presence('firstName')).toEqual(['optionalField']);
    expect(presence('email')).toEqual(['nullableField']);
    expect(presence('id')).toEqual([]);
  });

  it('names the type check before the bounds (limit 2.5 is "not an integer"), whatever the order of the decorators', () => {
    class Reversed {
      @Max(100, { context: { code: 'INVALID_LIMIT' } })
      @Min(1, { context: { code: 'INVALID_LIMIT' } })
      @IsInt({ context: { code: 'INVALID_LIMIT' } })
      limit: number;

      @MaxLength(3)
      @IsString()
      name: string;
    }
    const reversed = validationExceptionFactory(validateSync(plainToInstance(Reversed, { limit: '2.5', name: 12345 })));
    expect(reversed.errors?.map((x) => x.message)).toEqual(['limit must be an integer number', 'name must be a string']);

    const e = check({ id: 'u', limit: 2.5 as unknown as number });
    expect(e?.errors).toEqual([{ field: 'limit', code: 'INVALID_LIMIT', message: 'limit must be an integer number' }]);
    expect(check({ id: 'u', limit: '2.5' })?.errors?.[0].message).toBe('limit must be an integer number');
    expect(check({ id: 'u', limit: 101 })?.errors?.[0].message).toBe('limit must not be greater than 100');
    expect(check({ id: 'u', firstName: 123456 })?.errors?.[0]).toMatchObject({
      code: 'INVALID_STRING',
      message: 'firstName must be a string',
    });
  });

  it('a missing or null required field is REQUIRED, whatever other rules fail with it', () => {
    expect(check({})?.errors).toEqual([{ field: 'id', code: 'REQUIRED', message: 'id should not be null or undefined' }]);
    expect(check({ id: null })?.errors?.[0]).toMatchObject({ field: 'id', code: 'REQUIRED' });
  });
});
