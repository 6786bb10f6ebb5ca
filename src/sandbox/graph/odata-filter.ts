import { GraphRequestError } from './graph-error.js';

/** A compiled `$filter`: tells whether a record matches. */
export type RecordPredicate = (record: Record<string, unknown>) => boolean;

type Literal = string | boolean | null;
type Token =
  | { kind: 'word'; text: string }
  | { kind: 'string'; text: string }
  | { kind: 'punct'; text: '(' | ')' | ',' };

/**
 * Compiles the OData `$filter` subset directory clients use: `prop eq|ne literal`,
 * `prop in ('a','b')`, `startswith(prop,'x')`, `and`, `or`, `not`, parentheses.
 * String literals use OData's doubled quote (`'O''Brien'`); comparisons on strings
 * ignore case as Entra ID does. Properties outside `filterable` answer 400
 * `Request_UnsupportedQuery`.
 */
export function compileODataFilter(
  text: string,
  filterable: readonly string[],
  resource: string,
): RecordPredicate {
  const parser = new FilterParser(tokenize(text), filterable, resource);
  const predicate = parser.parseOr();
  parser.expectEnd();
  return predicate;
}

function invalidFilter(detail: string): GraphRequestError {
  return new GraphRequestError(400, 'BadRequest', `Invalid filter clause: ${detail}`);
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === ' ') {
      i += 1;
    } else if (ch === '(' || ch === ')' || ch === ',') {
      tokens.push({ kind: 'punct', text: ch });
      i += 1;
    } else if (ch === "'") {
      let value = '';
      i += 1;
      for (;;) {
        if (i >= text.length) throw invalidFilter('unterminated string literal.');
        if (text[i] === "'") {
          if (text[i + 1] === "'") {
            value += "'";
            i += 2;
            continue;
          }
          i += 1;
          break;
        }
        value += text[i];
        i += 1;
      }
      tokens.push({ kind: 'string', text: value });
    } else {
      const start = i;
      while (i < text.length && !" (),'".includes(text[i]!)) i += 1;
      tokens.push({ kind: 'word', text: text.slice(start, i) });
    }
  }
  return tokens;
}

function sameValue(actual: unknown, expected: Literal): boolean {
  if (typeof actual === 'string' && typeof expected === 'string')
    return actual.toLowerCase() === expected.toLowerCase();
  return (actual ?? null) === expected;
}

class FilterParser {
  private position = 0;

  constructor(
    private readonly tokens: Token[],
    private readonly filterable: readonly string[],
    private readonly resource: string,
  ) {}

  parseOr(): RecordPredicate {
    let left = this.parseAnd();
    while (this.peekWord('or')) {
      this.position += 1;
      const a = left;
      const b = this.parseAnd();
      left = (r) => a(r) || b(r);
    }
    return left;
  }

  expectEnd(): void {
    if (this.position < this.tokens.length)
      throw invalidFilter(`unexpected '${this.tokens[this.position]!.text}'.`);
  }

  private parseAnd(): RecordPredicate {
    let left = this.parseUnary();
    while (this.peekWord('and')) {
      this.position += 1;
      const a = left;
      const b = this.parseUnary();
      left = (r) => a(r) && b(r);
    }
    return left;
  }

  private parseUnary(): RecordPredicate {
    if (this.peekWord('not')) {
      this.position += 1;
      const inner = this.parseUnary();
      return (r) => !inner(r);
    }
    if (this.peekPunct('(')) {
      this.position += 1;
      const inner = this.parseOr();
      this.expectPunct(')');
      return inner;
    }
    const word = this.next('word').text;
    if (word.toLowerCase() === 'startswith' && this.peekPunct('(')) {
      this.position += 1;
      const property = this.property();
      this.expectPunct(',');
      const prefix = this.next('string').text.toLowerCase();
      this.expectPunct(')');
      return (r) => {
        const value = r[property];
        return typeof value === 'string' && value.toLowerCase().startsWith(prefix);
      };
    }
    const property = this.checkProperty(word);
    const operator = this.next('word').text.toLowerCase();
    if (operator === 'eq' || operator === 'ne') {
      const expected = this.literal();
      return operator === 'eq'
        ? (r) => sameValue(r[property], expected)
        : (r) => !sameValue(r[property], expected);
    }
    if (operator === 'in') {
      this.expectPunct('(');
      const options: Literal[] = [this.literal()];
      while (this.peekPunct(',')) {
        this.position += 1;
        options.push(this.literal());
      }
      this.expectPunct(')');
      return (r) => options.some((option) => sameValue(r[property], option));
    }
    throw new GraphRequestError(
      400,
      'Request_UnsupportedQuery',
      `Unsupported query operator '${operator}'.`,
    );
  }

  private literal(): Literal {
    const token = this.tokens[this.position];
    this.position += 1;
    if (token?.kind === 'string') return token.text;
    if (token?.kind === 'word' && token.text === 'true') return true;
    if (token?.kind === 'word' && token.text === 'false') return false;
    if (token?.kind === 'word' && token.text === 'null') return null;
    throw invalidFilter('expected a literal.');
  }

  private property(): string {
    return this.checkProperty(this.next('word').text);
  }

  private checkProperty(name: string): string {
    if (!this.filterable.includes(name)) {
      throw new GraphRequestError(
        400,
        'Request_UnsupportedQuery',
        `Unsupported or invalid query filter clause specified for property '${name}' of resource '${this.resource}'.`,
      );
    }
    return name;
  }

  private next<K extends Token['kind']>(kind: K): Extract<Token, { kind: K }> {
    const token = this.tokens[this.position];
    if (token?.kind !== kind)
      throw invalidFilter(`expected a ${kind === 'word' ? 'name' : 'string'}.`);
    this.position += 1;
    return token as Extract<Token, { kind: K }>;
  }

  private expectPunct(text: '(' | ')' | ','): void {
    if (!this.peekPunct(text)) throw invalidFilter(`expected '${text}'.`);
    this.position += 1;
  }

  private peekPunct(text: string): boolean {
    const token = this.tokens[this.position];
    return token?.kind === 'punct' && token.text === text;
  }

  private peekWord(text: string): boolean {
    const token = this.tokens[this.position];
    return token?.kind === 'word' && token.text.toLowerCase() === text;
  }
}
