import { type ValidationError, type ValidationOptions, ValidationTypes, getMetadataStorage } from 'class-validator';
import { AppException, type FieldError } from './app-exception';

/** Metadata names of the two presence rules (the OpenAPI generator reads them: not required / nullable). */
export const OPTIONAL_FIELD = 'optionalField';
export const NULLABLE_FIELD = 'nullableField';

type ValidationMetadata = Parameters<ReturnType<typeof getMetadataStorage>['addValidationMetadata']>[0];

/**
 * Registers a conditional rule the way class-validator's own IsOptional does: when `present` says
 * no, none of the property's other rules run. class-validator does not export its metadata class,
 * so the record is written out field by field.
 */
function presenceRule(name: string, present: (value: unknown) => boolean, options?: ValidationOptions): PropertyDecorator {
  return (object, propertyName) => {
    const metadata: ValidationMetadata = {
      type: ValidationTypes.CONDITIONAL_VALIDATION,
      name,
      target: object.constructor,
      propertyName: propertyName as string,
      constraints: [(target: Record<string | symbol, unknown>) => present(target[propertyName])],
      constraintCls: undefined as unknown as ValidationMetadata['constraintCls'],
      validationTypeOptions: undefined,
      message: options?.message as ValidationMetadata['message'],
      groups: options?.groups ?? [],
      always: options?.always,
      each: options?.each ?? false,
      context: options?.context,
      validateIf: options?.validateIf,
    };
    getMetadataStorage().addValidationMetadata(metadata);
  };
}

/**
 * The property may be left out. An explicit `null` is not "left out": it is checked by the
 * property's other rules and refused with the field's code (class-validator's IsOptional would let
 * it through, and code written for `undefined` then met a null).
 */
export function OptionalField(options?: ValidationOptions): PropertyDecorator {
  return presenceRule(OPTIONAL_FIELD, (value) => value !== undefined, options);
}

/** The property may be left out or be `null`, for fields the API documents as nullable. */
export function NullableField(options?: ValidationOptions): PropertyDecorator {
  return presenceRule(NULLABLE_FIELD, (value) => value !== undefined && value !== null, options);
}

/**
 * Field-level codes. A decorator may carry its own code through `context: { code }` (docs/partners.md "7. All error codes",
 * INVALID_AMOUNT, INVALID_TTL, ...): that code then wins, so the specific code is always visible
 * to the client in the field's `errors[]` entry.
 */
const CONSTRAINT_CODES: Record<string, string> = {
  whitelistValidation: 'UNKNOWN_FIELD',
  isDefined: 'REQUIRED',
  isNotEmpty: 'REQUIRED',
  nestedValidation: 'INVALID_OBJECT',
};

function codeOf(constraint: string): string {
  return (
    CONSTRAINT_CODES[constraint] ??
    `INVALID_${constraint
      .replace(/^is/, '')
      .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
      .toUpperCase()}`
  );
}

function fieldPath(parent: string, property: string): string {
  if (!parent) return property;
  return /^\d+$/.test(property) ? `${parent}[${property}]` : `${parent}.${property}`;
}

/** The rules that say what kind of value a field takes (class-validator's constraint names). */
const TYPE_CHECKS = new Set(['isString', 'isInt', 'isNumber', 'isBoolean', 'isArray', 'isObject']);

/**
 * When several rules of a field fail, the one a client must fix first: a missing value (IsDefined),
 * then a value of the wrong kind, then the other rules in the order class-validator ran them. A
 * value of the wrong kind also fails the bounds (Min and Max refuse anything but a number), and
 * `?limit=2.5` must say "must be an integer", not "must not be greater than 100". The decorators'
 * order cannot decide this: stacked ones run bottom-up, those composed with applyDecorators top-down.
 */
function byPriority(names: string[]): string[] {
  const rank = (n: string) => (n === 'isDefined' ? 0 : TYPE_CHECKS.has(n) ? 1 : 2);
  return [...names].sort((a, b) => rank(a) - rank(b));
}

/** Flattens nested class-validator errors into one entry per faulty field (`items[0].amount`). */
export function flattenValidationErrors(errors: ValidationError[], parent = ''): FieldError[] {
  const out: FieldError[] = [];
  for (const error of errors) {
    const field = fieldPath(parent, error.property);
    const constraints = error.constraints ?? {};
    const names = byPriority(Object.keys(constraints));
    if (names.length > 0) {
      // One entry per field: the first failing constraint carries the code a client acts on.
      const withCode = names.find((n) => typeof error.contexts?.[n]?.code === 'string');
      const name = withCode ?? names[0];
      const contextCode = error.contexts?.[name]?.code as string | undefined;
      out.push({ field, code: contextCode ?? codeOf(name), message: constraints[name] });
    }
    if (error.children && error.children.length > 0) {
      out.push(...flattenValidationErrors(error.children, field));
    }
  }
  return out;
}

/** `exceptionFactory` for Nest's ValidationPipe. */
export function validationExceptionFactory(errors: ValidationError[]): AppException {
  const fieldErrors = flattenValidationErrors(errors);
  const first = fieldErrors[0];
  const message = first ? `${first.field}: ${first.message}` : 'The request is invalid';
  return new AppException('VALIDATION_ERROR', message, { errors: fieldErrors });
}
