/** Spec: Last-logon value, connector A: the names checked when none is configured or it is empty. */
export const SCIM_LAST_LOGON_NAMES = [
  'lastLogin',
  'lastLogon',
  'lastLoginTime',
  'loginTime',
] as const;

export interface LastLogon {
  /** ISO 8601 time of the last logon. */
  value: string;
  /** Where it was found: the attribute name or path. */
  source: string;
}

/**
 * Reads the last logon of a SCIM resource (spec: Last-logon value): the configured
 * attribute first (a dotted path into nested attributes allowed), then the four known
 * names. SCIM attribute names are case-insensitive (RFC 7643 §2.1); schema URNs contain
 * dots, so a path segment may be a key that itself holds dots.
 *
 * @example
 * readScimLastLogon({ lastLogon: '2026-01-02T03:04:05Z' }); // { value: '2026-01-02T03:04:05.000Z', source: 'lastLogon' }
 */
export function readScimLastLogon(
  resource: Record<string, unknown>,
  configured?: string,
): LastLogon | undefined {
  const candidates = [
    ...(configured === undefined || configured === '' ? [] : [configured]),
    ...SCIM_LAST_LOGON_NAMES,
  ];
  for (const path of candidates) {
    const value = toIsoTime(resolvePath(resource, path));
    if (value !== undefined) return { value, source: path };
  }
  return undefined;
}

/**
 * Connector B: the most recent of the interactive, non-interactive and successful
 * sign-ins (spec: Last-logon value). Any of the three may be null.
 *
 * @example
 * latestSignIn({ lastSignInDateTime: '2026-01-01T00:00:00Z', lastNonInteractiveSignInDateTime: '2026-02-01T00:00:00Z' });
 * // '2026-02-01T00:00:00.000Z'
 */
export function latestSignIn(
  activity: Record<string, unknown> | null | undefined,
): string | undefined {
  if (activity === null || activity === undefined) return undefined;
  const times = [
    activity.lastSignInDateTime,
    activity.lastNonInteractiveSignInDateTime,
    activity.lastSuccessfulSignInDateTime,
  ]
    .map(toIsoTime)
    .filter((value): value is string => value !== undefined);
  return times.sort().at(-1);
}

/** Finds a value by a dotted path, matching keys case-insensitively, longest key first. */
export function resolvePath(value: unknown, path: string): unknown {
  if (path === '') return value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const entries = Object.entries(value as Record<string, unknown>).sort(
    ([a], [b]) => b.length - a.length,
  );
  const lowerPath = path.toLowerCase();
  for (const [key, child] of entries) {
    const lowerKey = key.toLowerCase();
    if (lowerPath === lowerKey) return child;
    if (lowerPath.startsWith(`${lowerKey}.`)) {
      const found = resolvePath(child, path.slice(key.length + 1));
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** An ISO time from a date string or an epoch number (seconds or milliseconds). */
function toIsoTime(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) {
    const ms = value < 1e11 ? value * 1000 : value;
    return new Date(ms).toISOString();
  }
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return toIsoTime(Number(trimmed));
  const ms = Date.parse(trimmed);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}
