import 'reflect-metadata';
import { Body, Controller, Get, Injectable, Module, Param, type PipeTransform, Post, Query } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { ApiOperation, ApiProperty, ApiResponse, DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsBoolean,
  IsEnum,
  IsIn,
  IsInt,
  IsISO8601,
  IsObject,
  IsString,
  IsUUID,
  IsUrl,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
  ValidationTypes,
  getMetadataStorage,
} from 'class-validator';
// class-validator's own marker: the document generator still reads it for DTOs not yet on OptionalField.
// eslint-disable-next-line no-restricted-imports
import { IsOptional } from 'class-validator';
import { strictOpenApiDocument } from './openapi-strict';

/** The platform's presence rules as libs/errors registers them: a conditional rule with this name. */
function presence(name: 'optionalField' | 'nullableField'): PropertyDecorator {
  return (object, propertyName) =>
    getMetadataStorage().addValidationMetadata({
      type: ValidationTypes.CONDITIONAL_VALIDATION,
      name,
      target: object.constructor,
      propertyName: propertyName as string,
      constraints: [(o: Record<string | symbol, unknown>) => o[propertyName] !== undefined],
      groups: [],
      each: false,
    } as never);
}

enum Colour {
  Red = 'red',
  Blue = 'blue',
}

class ActorDto {
  @IsString()
  @MaxLength(20)
  id: string;
}

class LineDto {
  @IsInt()
  @Min(1)
  amount: number;
}

class CreateThingDto {
  @ApiProperty({ type: Number, example: 10, description: 'documented as a number by hand' })
  @IsInt()
  @Min(1)
  @Max(100)
  amount: number;

  @IsUUID('4')
  accountId: string;

  @IsUrl()
  @IsOptional()
  callbackUrl?: string;

  @IsISO8601()
  @presence('optionalField')
  at?: string;

  @IsString()
  @Length(2, 8)
  @presence('nullableField')
  nickname?: string | null;

  @Matches(/^\+\d{8,15}$/)
  phone: string;

  @IsIn(['XAF', 'XOF'])
  currency: string;

  @IsEnum(Colour)
  colour: Colour;

  @IsBoolean()
  @IsOptional()
  flag?: boolean;

  @IsObject()
  @IsOptional()
  metadata?: Record<string, unknown>;

  @ValidateNested()
  @Type(() => ActorDto)
  actor: ActorDto;

  @ValidateNested()
  @Type(() => ActorDto)
  @presence('nullableField')
  previousActor?: ActorDto;

  @ValidateNested({ each: true })
  @ArrayMaxSize(3)
  @Type(() => LineDto)
  @ApiProperty({ type: [LineDto] })
  lines: LineDto[];

  @ApiProperty({ example: 'refused as unknown: no validation rule' })
  ghost?: string;
}

class ListQueryDto {
  @ApiProperty({ required: false, type: Number })
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  @IsOptional()
  limit?: number;
}

@Injectable()
class UuidPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)) throw new Error('not a uuid');
    return value;
  }
}

@Controller('things')
class ThingsController {
  @Post()
  @ApiResponse({ status: 429, description: 'RATE_LIMITED' })
  create(@Body() body: CreateThingDto): CreateThingDto {
    return body;
  }

  @Get()
  @ApiOperation({ deprecated: true })
  list(@Query() query: ListQueryDto): ListQueryDto {
    return query;
  }

  @Get(':id')
  get(@Param('id', UuidPipe) id: string, @Param('slug') _slug: string): string {
    return id;
  }
}

@Module({ controllers: [ThingsController] })
class ThingsModule {}

type Schema = Record<string, unknown> & { properties: Record<string, Record<string, unknown>>; required?: string[] };

describe('strictOpenApiDocument', () => {
  let app: NestFastifyApplication;
  let document: Awaited<ReturnType<typeof strictOpenApiDocument>>;

  beforeAll(async () => {
    app = await NestFactory.create<NestFastifyApplication>(ThingsModule, new FastifyAdapter(), { logger: false });
    await app.init();
    document = await strictOpenApiDocument(app, SwaggerModule.createDocument(app, new DocumentBuilder().build()));
  });
  afterAll(() => app.close());

  const schema = (name: string) => document.components!.schemas![name] as Schema;

  it('describes a body DTO by its validation rules', () => {
    const body = schema('CreateThingDto');
    expect(body.additionalProperties).toBe(false);
    expect(body.properties.amount).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, example: 10 });
    expect(body.properties.accountId).toMatchObject({ type: 'string', format: 'uuid' });
    expect(body.properties.callbackUrl).toMatchObject({ type: 'string', format: 'uri' });
    expect(body.properties.at).toMatchObject({ type: 'string', format: 'date-time' });
    expect(body.properties.nickname).toMatchObject({ type: 'string', minLength: 2, maxLength: 8, nullable: true });
    expect(body.properties.phone).toMatchObject({ pattern: '^\\+\\d{8,15}$' });
    expect(body.properties.currency).toMatchObject({ type: 'string', enum: ['XAF', 'XOF'] });
    expect(body.properties.colour).toMatchObject({ type: 'string', enum: ['red', 'blue'] });
    expect(body.properties.metadata).toMatchObject({ type: 'object', additionalProperties: true });
    expect(body.properties.actor).toEqual({ $ref: '#/components/schemas/ActorDto' });
    // OpenAPI 3.0 ignores every keyword beside a $ref: a nullable nested object says so through allOf
    expect(body.properties.previousActor).toEqual({ allOf: [{ $ref: '#/components/schemas/ActorDto' }], nullable: true });
    expect(body.properties.lines).toMatchObject({ type: 'array', maxItems: 3, items: { $ref: '#/components/schemas/LineDto' } });
    // the pipe refuses a property without rules (forbidNonWhitelisted): the document does not offer it
    expect(body.properties.ghost).toBeUndefined();
    expect(body.required).toEqual(['amount', 'accountId', 'phone', 'currency', 'colour', 'actor', 'lines']);
  });

  it('gives every derived property an example its rules accept, and describes nested classes too', () => {
    const body = schema('CreateThingDto');
    expect(body.properties.accountId.example).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.properties.flag.example).toBe(false);
    expect(schema('ActorDto')).toMatchObject({
      additionalProperties: false,
      required: ['id'],
      properties: { id: { type: 'string', maxLength: 20 } },
    });
    expect(schema('LineDto').properties.amount).toMatchObject({ type: 'integer', minimum: 1 });
  });

  it('types query parameters and path ids from their rules and pipes', () => {
    const list = document.paths['/things'].get!.parameters as unknown as Array<{
      name: string;
      required: boolean;
      schema: Record<string, unknown>;
    }>;
    expect(list.find((p) => p.name === 'limit')).toMatchObject({ required: false, schema: { type: 'integer', minimum: 1, maximum: 100 } });
    const get = document.paths['/things/{id}'].get!.parameters as unknown as Array<{ name: string; schema: Record<string, unknown> }>;
    expect(get.find((p) => p.name === 'id')!.schema).toMatchObject({ type: 'string', format: 'uuid' });
    // a parameter with no pipe accepts anything: left as documented
    expect(get.find((p) => p.name === 'slug')!.schema.format).toBeUndefined();
  });

  it('declares Retry-After on every 429, and the error body on every refusal', () => {
    const answer = document.paths['/things'].post!.responses['429'] as { headers?: Record<string, unknown>; content?: unknown };
    expect(answer.headers?.['Retry-After']).toMatchObject({ required: true, schema: { type: 'string' } });
    expect(answer.content).toEqual({ 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } });
  });

  it('declares the Deprecation header on the successes of a deprecated route', () => {
    const list = document.paths['/things'].get!.responses['200'] as { headers?: Record<string, unknown> };
    expect(list.headers?.Deprecation).toMatchObject({ required: true });
    const notDeprecated = document.paths['/things/{id}'].get!.responses['200'] as { headers?: Record<string, unknown> };
    expect(notDeprecated.headers?.Deprecation).toBeUndefined();
  });
});
