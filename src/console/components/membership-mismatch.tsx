import type { ApiErrorBody } from '../api-types';

interface NamedGroup {
  id?: string;
  name?: string;
  displayName?: string;
}

function groupsOf(value: unknown): NamedGroup[] {
  return Array.isArray(value) ? (value as NamedGroup[]) : [];
}

function GroupList({ label, groups }: { label: string; groups: NamedGroup[] }) {
  if (groups.length === 0) return null;
  return (
    <div class="mismatch-list">
      <h4>{label}</h4>
      <ul>
        {groups.map((group, index) => (
          <li key={group.id ?? index}>
            {group.name ?? group.displayName ?? group.id}
            {group.id !== undefined && (group.name ?? group.displayName) !== undefined ? (
              <span class="muted"> ({group.id})</span>
            ) : null}
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * `MEMBERSHIP_MISMATCH`: what the read-back showed against what was written, by group name:
 * the groups missing and the groups there that should not be.
 */
export function MembershipMismatch({ error }: { error: ApiErrorBody }) {
  const missing = groupsOf(error.details?.missing);
  const unexpected = groupsOf(error.details?.unexpected);
  if (missing.length === 0 && unexpected.length === 0) return null;
  return (
    <div class="mismatch">
      <GroupList label="Missing groups" groups={missing} />
      <GroupList label="Unexpected groups" groups={unexpected} />
    </div>
  );
}
