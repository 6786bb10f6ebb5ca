import type { ConnectorInfo } from '../api-types';

/** A labelled choice of connector; `anyLabel` adds a choice of none (no filter). */
export function ConnectorSelect({
  id,
  connectors,
  value,
  onChange,
  anyLabel,
  required,
}: {
  id: string;
  connectors: readonly ConnectorInfo[];
  value: string;
  onChange: (name: string) => void;
  anyLabel?: string;
  required?: boolean;
}) {
  return (
    <div class="field">
      <label for={id}>Connector</label>
      <select
        id={id}
        value={value}
        required={required}
        onChange={(event) => onChange((event.target as HTMLSelectElement).value)}
      >
        {anyLabel === undefined ? null : <option value="">{anyLabel}</option>}
        {connectors.map((connector) => (
          <option key={connector.name} value={connector.name}>
            {connector.name} ({connector.kind})
          </option>
        ))}
      </select>
    </div>
  );
}
