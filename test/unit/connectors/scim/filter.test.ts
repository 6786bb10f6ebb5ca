import { describe, expect, it } from 'vitest';
import { attributeFilter, quoteFilterValue } from '../../../../src/connectors/scim/filter';

describe('quoteFilterValue (RFC 7644 §3.4.2.2)', () => {
  it.each([
    ['jdoe', '"jdoe"'],
    ['a b', '"a b"'],
    ['say "hi"', '"say \\"hi\\""'],
    ['back\\slash', '"back\\\\slash"'],
    ['x" or userName pr or "', '"x\\" or userName pr or \\""'],
    ['', '""'],
  ])('%j -> %s', (value, expected) => {
    expect(quoteFilterValue(value)).toBe(expected);
  });

  it('keeps an injected quote inside the literal: the filter still has one comparison', () => {
    const filter = attributeFilter('userName', 'eq', 'x" or userName pr or "');
    const literal = filter.slice('userName eq '.length);
    expect(JSON.parse(literal)).toBe('x" or userName pr or "');
  });
});

describe('attributeFilter', () => {
  it('writes canonical attribute names and lowercase operators', () => {
    expect(attributeFilter('displayName', 'co', 'Sales')).toBe('displayName co "Sales"');
    expect(attributeFilter('userName', 'eq', 'jdoe')).toBe('userName eq "jdoe"');
  });
});
