import { useState } from 'preact/hooks';
import type { CatalogueRole } from '../api-types';

/**
 * Groups from the connector's role catalogue, to pick for a membership action. A group the
 * service may not write (dynamic, mail-enabled, synced, role-assignable) is shown with the
 * reason and cannot be picked: the request would fail before any write.
 */
export function GroupPicker({
  id,
  roles,
  selected,
  onChange,
}: {
  id: string;
  roles: readonly CatalogueRole[];
  selected: readonly string[];
  onChange: (names: string[]) => void;
}) {
  const [filter, setFilter] = useState('');
  const shown = roles.filter((role) =>
    role.displayName.toLowerCase().includes(filter.trim().toLowerCase()),
  );
  const toggle = (name: string, on: boolean) =>
    onChange(on ? [...selected, name] : selected.filter((picked) => picked !== name));
  return (
    <fieldset class="group-picker">
      <legend>
        Groups <span class="muted">({selected.length} picked)</span>
      </legend>
      <div class="field">
        <label for={`${id}-filter`}>Filter groups</label>
        <input
          id={`${id}-filter`}
          type="search"
          value={filter}
          onInput={(event) => setFilter((event.target as HTMLInputElement).value)}
        />
      </div>
      <ul class="picker-list">
        {shown.map((role) => {
          const inputId = `${id}-${role.groupId}`;
          return (
            <li key={role.groupId} class={role.writable ? '' : 'not-writable'}>
              <input
                id={inputId}
                type="checkbox"
                disabled={!role.writable}
                checked={selected.includes(role.displayName)}
                onChange={(event) =>
                  toggle(role.displayName, (event.target as HTMLInputElement).checked)
                }
                aria-describedby={role.writable ? undefined : `${inputId}-why`}
              />
              <label for={inputId}>{role.displayName}</label>
              {role.writable ? null : (
                <span id={`${inputId}-why`} class="muted">
                  {' '}
                  not writable: {role.notWritableReason ?? 'members cannot be written'}
                </span>
              )}
            </li>
          );
        })}
        {shown.length === 0 ? <li class="muted">No group matches.</li> : null}
      </ul>
    </fieldset>
  );
}
