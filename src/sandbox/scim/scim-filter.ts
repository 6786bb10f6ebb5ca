import { scimError } from './scim-error.js';

/** Comparison operators of RFC 7644 §3.4.2.2 (`pr` is separate: it takes no value). */
export type CompareOp = 'eq' | 'ne' | 'co' | 'sw' | 'ew' | 'gt' | 'lt' | 'ge' | 'le';

export type FilterValue = string | number | boolean | null;

/** A parsed SCIM filter: attribute paths are lower-cased segments, URN prefixes kept whole. */
export type FilterNode =
  | { kind: 'and' | 'or'; left: FilterNode; right: FilterNode }
  | { kind: 'not'; operand: FilterNode }
  | { kind: 'compare'; path: string[]; op: CompareOp; value: FilterValue }
  | { kind: 'present'; path: string[] }
  | { kind: 'valuePath'; path: string[]; filter: FilterNode };

/** A PATCH `path` (RFC 7644 §3.5.2): `attr`, `attr.sub`, `attr[filter]` or `attr[filter].sub`. */
export interface PatchPath {
  path: string[];
  filter?: FilterNode;
  subAttribute?: string;
}

type Token =
  | { type: 'open' | 'close' | 'lbracket' | 'rbracket' }
  | { type: 'string'; value: string }
  | { type: 'word'; value: string };

const COMPARE_OPS = new Set<string>(['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'lt', 'ge', 'le']);
const TOKEN = /\s+|(\()|(\))|(\[)|(\])|("(?:[^"\\]|\\.)*")|([^\s()[\]"]+)/y;
const NUMBER = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;

function invalid(detail: string): Error {
  return scimError(400, 'invalidFilter', detail);
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(text);
    if (m === null) throw invalid(`Unexpected character at position ${at + 1} in filter`);
    if (m[1] !== undefined) tokens.push({ type: 'open' });
    else if (m[2] !== undefined) tokens.push({ type: 'close' });
    else if (m[3] !== undefined) tokens.push({ type: 'lbracket' });
    else if (m[4] !== undefined) tokens.push({ type: 'rbracket' });
    else if (m[5] !== undefined) {
      // Filter strings are JSON strings (RFC 7644 §3.4.2.2), so `\"` and `\\` unescape here.
      try {
        tokens.push({ type: 'string', value: JSON.parse(m[5]) as string });
      } catch {
        throw invalid(`Invalid string literal at position ${at + 1} in filter`);
      }
    } else if (m[6] !== undefined) tokens.push({ type: 'word', value: m[6] });
  }
  return tokens;
}

/** Splits an attribute path into lower-cased segments; a URN prefix stays one segment. */
export function splitAttributePath(text: string): string[] {
  const lower = text.toLowerCase();
  if (lower.startsWith('urn:')) {
    const colon = lower.lastIndexOf(':');
    const urn = lower.slice(0, colon);
    const rest = lower.slice(colon + 1);
    return [urn, ...rest.split('.').filter((s) => s.length > 0)];
  }
  return lower.split('.').filter((s) => s.length > 0);
}

class Parser {
  private index = 0;
  constructor(private readonly tokens: Token[]) {}

  atEnd(): boolean {
    return this.index >= this.tokens.length;
  }

  peek(): Token | undefined {
    return this.tokens[this.index];
  }

  next(): Token {
    const token = this.tokens[this.index++];
    if (token === undefined) throw invalid('Unexpected end of filter');
    return token;
  }

  expect(type: Token['type']): Token {
    const token = this.next();
    if (token.type !== type) throw invalid(`Expected ${type} in filter`);
    return token;
  }

  peekKeyword(keyword: string): boolean {
    const token = this.peek();
    return token?.type === 'word' && token.value.toLowerCase() === keyword;
  }

  parseOr(): FilterNode {
    let left = this.parseAnd();
    while (this.peekKeyword('or')) {
      this.next();
      left = { kind: 'or', left, right: this.parseAnd() };
    }
    return left;
  }

  // RFC 7644 §3.4.2.2: "and" binds tighter than "or".
  parseAnd(): FilterNode {
    let left = this.parseUnary();
    while (this.peekKeyword('and')) {
      this.next();
      left = { kind: 'and', left, right: this.parseUnary() };
    }
    return left;
  }

  parseUnary(): FilterNode {
    if (this.peekKeyword('not')) {
      this.next();
      this.expect('open');
      const operand = this.parseOr();
      this.expect('close');
      return { kind: 'not', operand };
    }
    if (this.peek()?.type === 'open') {
      this.next();
      const inner = this.parseOr();
      this.expect('close');
      return inner;
    }
    return this.parseAttributeExpression();
  }

  parseAttributeExpression(): FilterNode {
    const attr = this.expect('word') as { type: 'word'; value: string };
    const path = splitAttributePath(attr.value);
    if (this.peek()?.type === 'lbracket') {
      this.next();
      const filter = this.parseOr();
      this.expect('rbracket');
      return { kind: 'valuePath', path, filter };
    }
    const opToken = this.expect('word') as { type: 'word'; value: string };
    const op = opToken.value.toLowerCase();
    if (op === 'pr') return { kind: 'present', path };
    if (!COMPARE_OPS.has(op)) throw invalid(`Unknown operator '${opToken.value}' in filter`);
    return { kind: 'compare', path, op: op as CompareOp, value: this.parseValue() };
  }

  parseValue(): FilterValue {
    const token = this.next();
    if (token.type === 'string') return token.value;
    if (token.type !== 'word') throw invalid('Expected a comparison value in filter');
    const lower = token.value.toLowerCase();
    if (lower === 'true') return true;
    if (lower === 'false') return false;
    if (lower === 'null') return null;
    if (NUMBER.test(token.value)) return Number(token.value);
    throw invalid(`Comparison value '${token.value}' must be quoted`);
  }
}

/**
 * Parses a SCIM filter (RFC 7644 §3.4.2.2). Throws a 400 `invalidFilter` SCIM error.
 *
 * @example
 * parseScimFilter('id eq "g1" and members eq "a\\"b"');
 */
export function parseScimFilter(text: string): FilterNode {
  const parser = new Parser(tokenize(text));
  if (parser.atEnd()) throw invalid('Empty filter');
  const node = parser.parseOr();
  if (!parser.atEnd()) throw invalid('Unexpected token after the end of the filter');
  return node;
}

/**
 * Parses a PATCH operation path (RFC 7644 §3.5.2). Throws a 400 `invalidPath` SCIM error.
 *
 * @example
 * parsePatchPath('members[value eq "u1"]'); // { path: ['members'], filter: {...} }
 */
export function parsePatchPath(text: string): PatchPath {
  try {
    const parser = new Parser(tokenize(text));
    const attr = parser.expect('word') as { type: 'word'; value: string };
    const result: PatchPath = { path: splitAttributePath(attr.value) };
    if (parser.peek()?.type === 'lbracket') {
      parser.next();
      result.filter = parser.parseOr();
      parser.expect('rbracket');
      const sub = parser.peek();
      if (sub?.type === 'word' && sub.value.startsWith('.') && sub.value.length > 1) {
        parser.next();
        result.subAttribute = sub.value.slice(1).toLowerCase();
      }
    }
    if (!parser.atEnd()) throw invalid('Unexpected token in path');
    return result;
  } catch (error) {
    const detail = error instanceof Error ? error.message : 'Invalid path';
    throw scimError(400, 'invalidPath', `Invalid PATCH path '${text}': ${detail}`);
  }
}
