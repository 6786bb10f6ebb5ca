import { describe, expect, it } from 'vitest';
import { decodeTableKey, encodeTableKey } from '../../../src/store/table-key';

describe('encodeTableKey', () => {
  it.each([
    ['a/b#c?d', 'a%2Fb%23c%3Fd'],
    ['back\\slash', 'back%5Cslash'],
    ['tab\there', 'tab%09here'],
    ['del\u007fc1\u0085', 'del%7Fc1%C2%85'],
    ['100%', '100%25'],
    ['jdoe@example.com', 'jdoe@example.com'],
    ["o'brien Müller", "o'brien Müller"],
  ])('%j becomes %j', (id, key) => {
    expect(encodeTableKey(id)).toBe(key);
  });

  it.each(['a/b#c?d', '%2F', '%%41', 'x\u0000y\u001fz', 'plain', 'ünï/cödé'])(
    'decodes %j back to itself',
    (id) => {
      expect(decodeTableKey(encodeTableKey(id))).toBe(id);
    },
  );

  it('gives different ids different keys, even ids that look encoded', () => {
    expect(encodeTableKey('a/b')).not.toBe(encodeTableKey('a%2Fb'));
  });

  it('leaves no character Table Storage refuses in a key', () => {
    const refused = (code: number) =>
      '/\\#?'.includes(String.fromCharCode(code)) || code <= 0x1f || (code >= 0x7f && code <= 0x9f);
    const everyLatin1 = Array.from({ length: 256 }, (_, code) => String.fromCharCode(code)).join(
      '',
    );
    const key = encodeTableKey(everyLatin1);
    expect([...key].filter((character) => refused(character.charCodeAt(0)))).toEqual([]);
    expect(decodeTableKey(key)).toBe(everyLatin1);
  });
});
