/*
 * Characters Table Storage refuses in PartitionKey and RowKey: / \ # ? and control
 * characters U+0000-U+001F and U+007F-U+009F ("Understanding the Table service data
 * model"). `%` is encoded too, so every `%` in a key starts an escape and decoding is exact.
 */
// eslint-disable-next-line no-control-regex
const NOT_ALLOWED = /[%/\\#?\u0000-\u001f\u007f-\u009f]/g;

/**
 * Turns an arbitrary id (account ID, group ID, connector name) into a valid table key,
 * reversibly: the refused characters and `%` become UTF-8 percent escapes, everything
 * else stays as it is, so keys remain readable in a storage browser.
 *
 * @example
 * encodeTableKey('a/b#c?d'); // 'a%2Fb%23c%3Fd'
 */
export function encodeTableKey(id: string): string {
  return id.replace(NOT_ALLOWED, (character) => encodeURIComponent(character));
}

/**
 * The id a key was made from (the inverse of {@link encodeTableKey}).
 *
 * @example
 * decodeTableKey('a%2Fb%23c%3Fd'); // 'a/b#c?d'
 */
export function decodeTableKey(key: string): string {
  return decodeURIComponent(key);
}
