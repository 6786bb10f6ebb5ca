/**
 * The one rule for "this name is a secret's" (DESIGN invariant 5): a key of a message, an
 * attribute of a request or a span. Case-insensitive, anywhere in the name (`Password`,
 * `userPwd`, `clientSecret`, `access_token`, `x-functions-key`).
 */
const SECRET_NAME =
  /authorization|password|passwd|passphrase|pwd|secret|token|cookie|api[-_.]?key|functions-key|credential|signature/i;

/**
 * Whether a name is a secret's: its value is a secret, whatever it holds.
 *
 * @example
 * isSecretName('userPwd'); // true
 * isSecretName('department'); // false
 */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/**
 * The secret word a name holds, or undefined: for messages that name it.
 *
 * @example
 * secretWordIn('userPassword'); // 'Password'
 */
export function secretWordIn(name: string): string | undefined {
  return SECRET_NAME.exec(name)?.[0];
}
