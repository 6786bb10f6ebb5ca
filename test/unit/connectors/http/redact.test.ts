import { describe, expect, it } from 'vitest';
import {
  describeUrl,
  oneLine,
  redactSecrets,
  redactValue,
} from '../../../../src/connectors/http/redact';

describe('redactSecrets', () => {
  it('removes every occurrence of every secret', () => {
    expect(redactSecrets('a s3cret b s3cret c t0ken', ['s3cret', 't0ken'])).toBe(
      'a [redacted] b [redacted] c [redacted]',
    );
  });

  it('leaves the text alone without secrets, and ignores values too short to be secrets', () => {
    expect(redactSecrets('nothing here', [])).toBe('nothing here');
    expect(redactSecrets('a b c', ['a'])).toBe('a b c');
  });

  it('removes a secret however a JSON text spells it: short escapes, \\uXXXX in either case, mixed', () => {
    const secret = 'Sü/"x\\y😀-9';
    const spellings = [
      JSON.stringify(secret).slice(1, -1),
      // PHP's json_encode: `\/` and every non-ASCII unit as \uXXXX (a surrogate pair for 😀).
      'S\\u00fc\\/\\"x\\\\y\\ud83d\\ude00-9',
      // Every unit escaped, upper-case hex.
      [...Array(secret.length).keys()]
        .map((i) => `\\u${secret.charCodeAt(i).toString(16).toUpperCase().padStart(4, '0')}`)
        .join(''),
      // Mixed: some plain, some escaped.
      '\\u0053ü\\u002f\\u0022x\\\\\\u0079😀\\u002d9',
    ];
    for (const spelled of spellings) {
      const text = `{"message":"password ${spelled} is too weak"}`;
      expect((JSON.parse(text) as { message: string }).message).toBe(
        `password ${secret} is too weak`,
      );
      expect(redactSecrets(text, [secret])).toBe('{"message":"password [redacted] is too weak"}');
    }
    // A backslash that spells something else is left alone.
    expect(redactSecrets('path C:\\\\temp\\u0041', [secret])).toBe('path C:\\\\temp\\u0041');
  });
});

describe('describeUrl', () => {
  it('drops user-info and fragment but keeps the query', () => {
    expect(describeUrl(new URL('https://user:pw@app.example/scim/v2/Users?filter=x#frag'))).toBe(
      'https://app.example/scim/v2/Users?filter=x',
    );
  });
});

describe('oneLine', () => {
  it('folds a multi-line answer into one line and cuts it at the limit', () => {
    expect(oneLine('  Invalid\n\tfilter  "x"\n', 300)).toBe('Invalid filter "x"');
    expect(oneLine('a'.repeat(20), 10)).toBe(`${'a'.repeat(10)}...`);
    expect(oneLine('a'.repeat(10), 10)).toBe('a'.repeat(10));
  });
});

describe('redactValue', () => {
  it('redacts a secret used as a key', () => {
    expect(redactValue({ 'p4ss!word': 1 }, ['p4ss!word'])).toEqual({ '[redacted]': 1 });
  });

  it('redacts every string of a parsed answer, at any depth, and leaves the rest', () => {
    expect(
      redactValue({ detail: 'bad s3cret!!', n: 1, list: [{ v: 'x s3cret!! y' }, true] }, [
        's3cret!!',
      ]),
    ).toEqual({ detail: 'bad [redacted]', n: 1, list: [{ v: 'x [redacted] y' }, true] });
  });

  it('catches a secret written escaped inside a JSON text', () => {
    expect(redactSecrets('{"detail":"pw a\\"b\\\\c9 refused"}', ['a"b\\c9'])).toBe(
      '{"detail":"pw [redacted] refused"}',
    );
  });
});
