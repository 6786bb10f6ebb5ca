import { expect } from 'vitest';

/** Characters shown either side of a leak. */
const AROUND = 40;

/** `text` as searched: strings as they are, anything else as its JSON. */
function asText(text: unknown): string {
  return typeof text === 'string' ? text : (JSON.stringify(text) ?? String(text));
}

/**
 * The forms a planted value takes in text: as it is, escaped inside a JSON string, and
 * URL-encoded (a query or a form body). Each secret is searched in every form.
 */
function formsOf(value: string): string[] {
  return [...new Set([value, JSON.stringify(value).slice(1, -1), encodeURIComponent(value)])];
}

/**
 * `part` with every form of every planted value replaced by its name in angle brackets, the
 * longest first: a value inside another is masked with it, never left in pieces.
 */
function masked(part: string, secrets: readonly (readonly [string, string])[]): string {
  const forms = secrets
    .flatMap(([name, value]) => formsOf(value).map((form) => [name, form] as const))
    .sort((a, b) => b[1].length - a[1].length);
  let out = part;
  for (const [name, form] of forms) out = out.split(form).join(`<${name}>`);
  return out;
}

/**
 * Where planted secrets appear in `text`: one line per secret found, naming it, where it was
 * found (the first time, and how often) and the text around it with every planted value
 * masked. Never contains a value, nor part of one.
 *
 * @example
 * secretLeaks('token=abc123', { 'bearer token': 'abc123' }, 'the log');
 * // ['bearer token leaked in the log at character 6: "token=<bearer token>"']
 */
export function secretLeaks(
  text: unknown,
  secrets: Readonly<Record<string, string>>,
  where = 'the text',
): string[] {
  const searched = asText(text);
  const planted = Object.entries(secrets);
  const leaks: string[] = [];
  let shown: string | undefined;
  for (const [name, value] of planted) {
    const found = formsOf(value)
      .map((form) => ({ form, at: searched.indexOf(form) }))
      .filter((hit) => hit.at >= 0);
    const first = found[0];
    if (first === undefined) continue;
    const at = first.at;
    // Masked whole before cutting, so that no cut can leave a piece of a value unmasked.
    shown ??= masked(searched, planted);
    const mark = shown.indexOf(`<${name}>`);
    const around = shown.slice(Math.max(0, mark - AROUND), mark + name.length + 2 + AROUND);
    const times = found.reduce((total, hit) => total + searched.split(hit.form).length - 1, 0);
    const often = times > 1 ? ` (${times} times)` : '';
    leaks.push(`${name} leaked in ${where} at character ${at}${often}: ${JSON.stringify(around)}`);
  }
  return leaks;
}

/**
 * Fails the test if any planted secret appears in `text` (a string, or anything else as its
 * JSON), naming which secret leaked and where without printing its value, where
 * `expect(text).not.toContain(secret)` would print it in the failure. A planted value that is
 * empty would prove nothing, so it fails too.
 *
 * @example
 * expectNoSecrets(report, { password: PASSWORD }, 'the request report');
 */
export function expectNoSecrets(
  text: unknown,
  secrets: Readonly<Record<string, string | undefined>>,
  where = 'the text',
): void {
  const empty = Object.entries(secrets)
    .filter(([, value]) => value === undefined || value === '')
    .map(([name]) => name);
  expect(empty, 'planted secrets without a value: the check would prove nothing').toEqual([]);
  const leaks = secretLeaks(text, secrets as Record<string, string>, where);
  expect(leaks, leaks.join('\n')).toEqual([]);
}
