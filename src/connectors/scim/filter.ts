/**
 * A SCIM filter string literal (RFC 7644 §3.4.2.2, string values are JSON strings): always
 * quoted, with `\` and `"` escaped, so a value can never change the filter's meaning.
 *
 * @example
 * quoteFilterValue('a"b'); // '"a\\"b"'
 */
export function quoteFilterValue(value: string): string {
  return JSON.stringify(value);
}

/**
 * One attribute comparison, `userName eq "x"`. Attribute names and operators are sent in
 * canonical case: some servers compare them case-sensitively (scim-interop.md).
 *
 * @example
 * attributeFilter('displayName', 'co', 'Sales'); // 'displayName co "Sales"'
 */
export function attributeFilter(attribute: string, operator: 'eq' | 'co', value: string): string {
  return `${attribute} ${operator} ${quoteFilterValue(value)}`;
}
