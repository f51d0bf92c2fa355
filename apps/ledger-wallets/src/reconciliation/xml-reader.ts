import { malformed } from './parsed-statement';

/** One element of a small XML document: local name (prefix dropped), attributes, child elements, text. */
export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  /** the element's own character data, entities decoded (mixed content is refused) */
  text: string;
}

const NAME = /^[A-Za-z_][\w.-]*(?::[A-Za-z_][\w.-]*)?/;
const MAX_DEPTH = 32;
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/**
 * A strict reader for the subset of XML a bank statement uses: one root element, elements,
 * attributes, character data, comments, CDATA and the XML declaration. Anything else is refused
 * rather than guessed at: a DOCTYPE (and with it every custom entity, the door to entity expansion
 * and external entities), processing instructions, unknown entities, mismatched or unclosed tags,
 * duplicate attributes, text outside the root, mixed content, nesting deeper than 32.
 */
export function readXml(source: string): XmlElement {
  let pos = 0;
  const fail = (problem: string): never => {
    const line = source.slice(0, pos).split('\n').length;
    throw malformed(`XML line ${line}`, problem);
  };

  const skipMisc = (): void => {
    for (;;) {
      while (pos < source.length && /\s/.test(source[pos])) pos++;
      if (source.startsWith('<!--', pos)) {
        const end = source.indexOf('-->', pos + 4);
        if (end < 0) fail('unclosed comment');
        pos = end + 3;
      } else if (source.startsWith('<?', pos)) {
        fail('processing instructions are not accepted');
      } else if (source.startsWith('<!', pos)) {
        fail('DOCTYPE and other declarations are not accepted');
      } else return;
    }
  };

  const decode = (raw: string): string =>
    raw.replace(/&([^;&\s]*);?/g, (whole, name: string) => {
      if (!whole.endsWith(';')) fail(`"&" must start an entity such as &amp;`);
      if (name in ENTITIES) return ENTITIES[name];
      const num = /^#(?:x([0-9a-fA-F]{1,6})|([0-9]{1,7}))$/.exec(name);
      if (num) {
        const code = num[1] !== undefined ? parseInt(num[1], 16) : Number(num[2]);
        if (code === 0 || code > 0x10ffff) fail(`character reference &${name}; out of range`);
        return String.fromCodePoint(code);
      }
      return fail(`unknown entity &${name};`);
    });

  const readName = (): string => {
    const m = NAME.exec(source.slice(pos, pos + 200));
    if (!m) fail('an element or attribute name was expected');
    pos += m![0].length;
    return m![0];
  };

  const element = (depth: number): XmlElement => {
    if (depth > MAX_DEPTH) fail(`elements nested deeper than ${MAX_DEPTH}`);
    if (source[pos] !== '<') fail('an element was expected');
    pos++;
    const qname = readName();
    const attributes: Record<string, string> = {};
    for (;;) {
      const before = pos;
      while (pos < source.length && /\s/.test(source[pos])) pos++;
      if (source.startsWith('/>', pos)) {
        pos += 2;
        return { name: local(qname), attributes, children: [], text: '' };
      }
      if (source[pos] === '>') {
        pos++;
        break;
      }
      if (pos === before) fail(`a space, ">" or "/>" was expected in <${qname}>`);
      const attr = readName();
      while (/\s/.test(source[pos] ?? '')) pos++;
      if (source[pos] !== '=') fail(`attribute ${attr} has no value`);
      pos++;
      while (/\s/.test(source[pos] ?? '')) pos++;
      const quote = source[pos];
      if (quote !== '"' && quote !== "'") fail(`the value of attribute ${attr} must be quoted`);
      const end = source.indexOf(quote, pos + 1);
      if (end < 0) fail(`unclosed value of attribute ${attr}`);
      const raw = source.slice(pos + 1, end);
      if (raw.includes('<')) fail(`"<" in the value of attribute ${attr}`);
      const key = local(attr);
      if (attr in attributes || (key !== attr && key in attributes && !attr.startsWith('xmlns'))) fail(`attribute ${attr} given twice`);
      attributes[attr.startsWith('xmlns') ? attr : key] = decode(raw);
      pos = end + 1;
    }
    const children: XmlElement[] = [];
    let text = '';
    for (;;) {
      if (pos >= source.length) fail(`<${qname}> is never closed`);
      if (source.startsWith('</', pos)) {
        pos += 2;
        const closing = readName();
        if (closing !== qname) fail(`</${closing}> closes <${qname}>`);
        while (/\s/.test(source[pos] ?? '')) pos++;
        if (source[pos] !== '>') fail(`">" expected after </${closing}`);
        pos++;
        if (children.length > 0 && text.trim()) fail(`<${qname}> mixes text and elements`);
        return { name: local(qname), attributes, children, text: children.length > 0 ? '' : text };
      }
      if (source.startsWith('<!--', pos)) {
        const end = source.indexOf('-->', pos + 4);
        if (end < 0) fail('unclosed comment');
        pos = end + 3;
      } else if (source.startsWith('<![CDATA[', pos)) {
        const end = source.indexOf(']]>', pos + 9);
        if (end < 0) fail('unclosed CDATA section');
        text += source.slice(pos + 9, end);
        pos = end + 3;
      } else if (source.startsWith('<!', pos) || source.startsWith('<?', pos)) {
        fail('declarations and processing instructions are not accepted inside elements');
      } else if (source[pos] === '<') {
        children.push(element(depth + 1));
      } else {
        const next = source.indexOf('<', pos);
        const end = next < 0 ? source.length : next;
        const raw = source.slice(pos, end);
        if (raw.includes(']]>')) fail('"]]>" in character data');
        text += decode(raw);
        pos = end;
      }
    }
  };

  if (source.charCodeAt(0) === 0xfeff) pos = 1;
  if (source.startsWith('<?xml', pos)) {
    const end = source.indexOf('?>', pos);
    if (end < 0) fail('unclosed XML declaration');
    const declaration = source.slice(pos, end);
    const encoding = /encoding\s*=\s*["']([^"']+)["']/.exec(declaration)?.[1];
    if (encoding && !/^utf-?8$/i.test(encoding)) fail(`encoding ${encoding}: only UTF-8 is read`);
    pos = end + 2;
  }
  skipMisc();
  if (pos >= source.length) fail('no root element');
  const root = element(1);
  skipMisc();
  if (pos < source.length) fail('content after the root element');
  return root;
}

function local(qname: string): string {
  const i = qname.indexOf(':');
  return i < 0 ? qname : qname.slice(i + 1);
}

/** The children of `parent` named `name`. */
export function all(parent: XmlElement, name: string): XmlElement[] {
  return parent.children.filter((c) => c.name === name);
}

/** The element at `path` under `parent` (each step the one child of that name); undefined when absent, refused when repeated. */
export function at(parent: XmlElement, path: string, where: string): XmlElement | undefined {
  let current: XmlElement | undefined = parent;
  for (const step of path.split('/')) {
    if (!current) return undefined;
    const found = all(current, step);
    if (found.length > 1) throw malformed(where, `${step} appears ${found.length} times where one is expected`);
    current = found[0];
  }
  return current;
}

/** The trimmed text at `path`, refused when absent or empty. */
export function required(parent: XmlElement, path: string, where: string): string {
  const text = at(parent, path, where)?.text.trim();
  if (!text) throw malformed(where, `${path} is missing`);
  return text;
}
