import { type ArgumentMetadata, Injectable, type PipeTransform } from '@nestjs/common';
import { AppException } from '@mm/errors';

/**
 * Every request body, query string and path value of every service, before its handler: PostgreSQL
 * cannot take U+0000 in text or jsonb, so a string holding one (in a value or a key, at any depth)
 * would only fail in the query, as a 500. Refused here instead, as the 400 VALIDATION_ERROR of any other malformed field.
 * So is a lone surrogate (JSON's "\ud800" parses to one): it is not Unicode text, and the driver
 * would silently store U+FFFD in its place (or PostgreSQL refuse it inside JSON).
 * The first global pipe (bootstrap.ts), so it also sees bodies a route checks with compiled rules
 * (the ledger's transition) and bodies the ValidationPipe would skip.
 */
@Injectable()
export class StorableTextPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    // Bodies, query strings and path values: each of them reaches a query (`?q=%00` did, as a 500).
    if (metadata.type === 'custom') return value;
    // A named value (`@Param('id')`, `@Query('q')`) is reported under its name, a whole DTO by its fields.
    const found = unstorableField(value, metadata.data ?? '');
    if (found !== undefined) {
      const field = found || metadata.type;
      const message = 'must not contain the character U+0000 or an unpaired surrogate';
      throw new AppException('VALIDATION_ERROR', `${field}: ${message}`, {
        errors: [{ field, code: 'INVALID_CHARACTER', message }],
      });
    }
    return value;
  }
}

/** A UTF-16 surrogate without its pair. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** U+0000, or a lone surrogate. */
const unstorable = (text: string): boolean => text.includes('\u0000') || LONE_SURROGATE.test(text);

/**
 * The path of the first string (value or key) holding an unstorable character, or undefined.
 * Depth-first with an explicit stack, not recursion: whatever the nesting of the value (bodies are
 * bounded by the JSON parser, but a pipe must not rely on its caller), it cannot exhaust the call
 * stack. Keys and values are visited in document order, each key just before its value.
 */
function unstorableField(value: unknown, path: string): string | undefined {
  const stack: Array<[unknown, string]> = [[value, path]];
  while (stack.length > 0) {
    const [node, at] = stack.pop()!;
    if (typeof node === 'string') {
      if (unstorable(node)) return at;
    } else if (Array.isArray(node)) {
      for (let k = node.length - 1; k >= 0; k--) stack.push([node[k], `${at}[${k}]`]);
    } else if (typeof node === 'object' && node !== null) {
      const entries = Object.entries(node);
      for (let k = entries.length - 1; k >= 0; k--) {
        const [key, v] = entries[k];
        const keyPath = at ? `${at}.${key}` : key;
        stack.push([v, keyPath], [key, keyPath]);
      }
    }
  }
  return undefined;
}
