const SYMBOLS: Record<string, string> = {
  pending: '○',
  running: '◔',
  succeeded: '✓',
  failed: '✕',
  skipped: '–',
  fits: '✓',
  'does not fit': '✕',
  'could not tell': '?',
  ok: '✓',
  granted: '✓',
  missing: '✕',
  unknown: '?',
  'not verified': '?',
  works: '✓',
  'will fail': '✕',
  untested: '?',
  'fits with the suggested settings': '✓',
  present: '✓',
  gone: '–',
  enabled: '✓',
  locked: '⊘',
  'would succeed': '✓',
  'would fail': '✕',
  'would be skipped': '–',
  quarantined: '‖',
  held: '‖',
  active: '✓',
  failing: '✕',
  degraded: '!',
  'not checked': '?',
  complete: '✓',
  incomplete: '!',
  stale: '!',
  refused: '✕',
  expired: '✕',
  'expires soon': '!',
  'findings not marked': '!',
};

/**
 * A state shown with a symbol and its word, never by colour alone (colour-blind users, print).
 */
export function StatusBadge({ status }: { status: string }) {
  const tone = /^[a-z]+(?: [a-z]+)*$/.test(status) ? status.replace(/ /g, '-') : 'unknown';
  return (
    <span class={`badge badge-${tone}`}>
      <span aria-hidden="true">{SYMBOLS[status] ?? '•'}</span> {status}
    </span>
  );
}
