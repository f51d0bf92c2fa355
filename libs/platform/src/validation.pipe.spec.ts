import 'reflect-metadata';
import { IsString, MaxLength } from 'class-validator';
import { AppException, OptionalField } from '@mm/errors';
import { PlatformValidationPipe } from './validation.pipe';

class UpdateDto {
  @OptionalField()
  @IsString()
  @MaxLength(10)
  name?: string;
}

const pipe = new PlatformValidationPipe();
const asBody = { type: 'body', metatype: UpdateDto, data: undefined } as const;

async function refusal(value: unknown, metadata = asBody): Promise<AppException> {
  const error = await pipe.transform(value, metadata).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof AppException)) throw new Error(`expected a refusal, got ${String(error)}`);
  return error;
}

describe('PlatformValidationPipe', () => {
  it('refuses a body that is JSON null like any body that is not an object: field body, INVALID_OBJECT', async () => {
    const error = await refusal(null);
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.errors).toEqual([{ field: 'body', code: 'INVALID_OBJECT', message: 'the request body must be a JSON object, not null' }]);
    // The same entry as Nest's own refusal of an array or a string body.
    for (const other of [[], 'text']) expect((await refusal(other)).errors?.[0]).toMatchObject({ field: 'body', code: 'INVALID_OBJECT' });
  });

  it('an explicit null field is refused with the field code; no body at all is an empty object', async () => {
    expect((await refusal({ name: null })).errors).toEqual([expect.objectContaining({ field: 'name', code: 'INVALID_STRING' })]);
    expect(await pipe.transform(undefined, asBody)).toEqual({});
    expect(await pipe.transform({ name: 'Awa' }, asBody)).toEqual({ name: 'Awa' });
  });

  it('leaves a null alone where nothing is validated (a route reading the raw body)', async () => {
    expect(await pipe.transform(null, { type: 'body', metatype: Object, data: undefined })).toBeNull();
  });
});
