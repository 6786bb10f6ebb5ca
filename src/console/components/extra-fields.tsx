import { asText } from '../format';

/**
 * The fields of an answer the page does not know yet, shown as they are: a field the API
 * adds (a report's new section) is visible before the page is taught to lay it out. Plain
 * values are listed; a structured value is folded under its name, to open on demand.
 */
export function ExtraFields({
  value,
  known,
  label = 'More details',
}: {
  value: Record<string, unknown> | undefined;
  known: readonly string[];
  label?: string;
}) {
  if (value === undefined) return null;
  const extra = Object.entries(value).filter(
    ([name, field]) => !known.includes(name) && field !== undefined && field !== null,
  );
  if (extra.length === 0) return null;
  return (
    <dl class="extra-fields" aria-label={label}>
      {extra.map(([name, field]) => (
        <div key={name}>
          {typeof field === 'object' ? (
            <dd>
              <details>
                <summary>{name}</summary>
                <pre>{asText(field)}</pre>
              </details>
            </dd>
          ) : (
            <>
              <dt>{name}</dt>
              <dd>{asText(field)}</dd>
            </>
          )}
        </div>
      ))}
    </dl>
  );
}
