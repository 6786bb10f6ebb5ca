/** Query parameters of a Graph call; undefined values are left out. */
export type GraphQuery = Record<string, string | number | undefined>;

/**
 * A query string Graph reads as OData: `$`-names kept literal, values percent-encoded
 * (spaces as %20, never '+', which OData would read as a plus sign).
 *
 * @example
 * graphQuery({ $filter: "displayName eq 'A B'", $top: 5 }); // "?$filter=displayName%20eq%20'A%20B'&$top=5"
 */
export function graphQuery(query: GraphQuery = {}): string {
  const parts = Object.entries(query)
    .filter((entry): entry is [string, string | number] => entry[1] !== undefined)
    .map(([name, value]) => `${name}=${encodeOData(String(value))}`);
  return parts.length === 0 ? '' : `?${parts.join('&')}`;
}

/** A path segment: ids and UPNs with '#', '/', '?' stay one segment. */
export function segment(value: string): string {
  return encodeURIComponent(value);
}

/**
 * A string literal inside `$filter` (OData ABNF: a quote is doubled).
 *
 * @example
 * odataString("O'Brien"); // "'O''Brien'"
 */
export function odataString(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

/**
 * The `@odata.id` of a directory object for `members/$ref` writes. graph-behaviour.md:
 * it must use the same Graph root as the call (national clouds), so it is built on the
 * configured endpoint.
 *
 * @example
 * directoryObjectRef('https://graph.microsoft.us', 'u1'); // 'https://graph.microsoft.us/v1.0/directoryObjects/u1'
 */
export function directoryObjectRef(graphEndpoint: string, objectId: string): string {
  return `${graphEndpoint}/v1.0/directoryObjects/${segment(objectId)}`;
}

function encodeOData(value: string): string {
  return encodeURIComponent(value).replace(/%24/g, '$').replace(/%2C/gi, ',');
}
