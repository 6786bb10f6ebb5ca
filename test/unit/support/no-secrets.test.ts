import { describe, expect, it } from 'vitest';
import { expectNoSecrets, secretLeaks } from '../../support/no-secrets';

const TOKEN = 'tok-Planted-4471';
const PASSWORD = 'Pw!Planted-9';

describe('expectNoSecrets', () => {
  it('passes when no planted value appears', () => {
    expect(() =>
      expectNoSecrets({ message: 'refused' }, { token: TOKEN, password: PASSWORD }),
    ).not.toThrow();
  });

  it('fails naming the secret and where, with the value masked in all it prints', () => {
    const log = `${'x'.repeat(60)} sent Authorization: Bearer ${TOKEN} with ${PASSWORD}, again ${TOKEN}`;
    let message = '';
    try {
      expectNoSecrets(log, { 'bearer token': TOKEN, password: PASSWORD }, 'the log');
    } catch (error) {
      message = String(error);
    }
    expect(message).toContain('bearer token leaked in the log at character 88 (2 times)');
    expect(message).toContain('Bearer <bearer token> with <password>');
    expect(message).toContain('password leaked in the log');
    expect(message).not.toContain(TOKEN);
    expect(message).not.toContain(PASSWORD);
    // Not even a piece of a value at the edge of what is shown.
    expect(message).not.toContain('Planted');
  });

  it('searches the JSON of what is not text', () => {
    expect(secretLeaks({ nested: [{ value: TOKEN }] }, { token: TOKEN })).toEqual([
      'token leaked in the text at character 21: "{\\"nested\\":[{\\"value\\":\\"<token>\\"}]}"',
    ]);
  });

  it('fails on a planted secret without a value, which would prove nothing', () => {
    expect(() => expectNoSecrets('anything', { token: '' })).toThrow(/without a value/);
    expect(() => expectNoSecrets('anything', { token: undefined })).toThrow(/without a value/);
  });
});

describe('secretLeaks, in the forms a value takes in text', () => {
  it('finds a value escaped in JSON or URL-encoded', () => {
    const quoted = 'pa"ss\\word';
    expect(secretLeaks(JSON.stringify({ p: quoted }), { password: quoted })).toHaveLength(1);
    const spaced = 'p&ss word';
    expect(secretLeaks(`?pw=${encodeURIComponent(spaced)}`, { password: spaced })).toHaveLength(1);
  });

  it('masks a value inside another whole, printing no piece of either', () => {
    const outer = 'outer-Planted-secret';
    const inner = 'Planted';
    const [leak] = secretLeaks(`x ${outer} y`, { inner, outer });
    expect(leak).toContain('<outer>');
    expect(leak).not.toContain('secret');
    expect(leak).not.toContain('Planted');
  });
});
