/**
 * Which further attributes (`account.attributes`) a request may carry. A connector writes
 * only the attributes its Mapping names; one it does not name would be dropped without a
 * word, and the caller would believe the target holds it. And no attribute may carry a
 * secret: the request's `password` has its own field and goes to the secret store, while
 * attributes travel in the orchestration's input and history (DESIGN invariant 5).
 */

/** Why one attribute of a request is refused. */
export interface AttributeRefusal {
  attribute: string;
  message: string;
}

/**
 * The attributes the connector would not write: each named with what the connector's Mapping
 * does name (and the spelling it uses, where only the case differs). Empty: all are mapped.
 *
 * @example
 * unmappedAttributes(['department', 'Title'], 'hr', ['title']);
 * // [{ attribute: 'department', message: '...' }, { attribute: 'Title', message: '... did you mean "title"?' }]
 */
export function unmappedAttributes(
  attributes: readonly string[],
  connector: string,
  mapped: readonly string[],
): AttributeRefusal[] {
  const known = new Set(mapped);
  const names =
    mapped.length === 0
      ? 'its Mapping names no attribute'
      : `its Mapping names ${[...mapped].sort().join(', ')}`;
  return attributes
    .filter((attribute) => !known.has(attribute))
    .map((attribute) => {
      const spelled = mapped.find((name) => name.toLowerCase() === attribute.toLowerCase());
      return {
        attribute,
        message:
          `connector "${connector}" does not write attribute "${attribute}" (${names})` +
          (spelled === undefined
            ? ": add it to the connector's Mapping, or leave it out"
            : `: did you mean "${spelled}"? Attribute names are matched exactly`),
      };
    });
}
