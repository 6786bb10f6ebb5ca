import type { ConnectorTally, FaultSuiteResult } from './fault-suite';

const FAULT_ROWS: [string, string][] = [
  ['throttle', '429 with Retry-After'],
  ['storm', '429 storm (every call)'],
  ['server error', '503 / 504'],
  ['reset', 'connection reset'],
  ['lost answer', 'answer lost after the write'],
  ['new object 404', 'new object 404 to a write'],
  ['stale read', 'stale read (lagging replica)'],
  ['duplicate delivery', 'queue message delivered twice'],
  ['concurrent request', 'requests for one account at once'],
];

/** Faults injected on a connector (the whole-history replays are counted apart). */
export function faultTotal(tally: ConnectorTally): number {
  return FAULT_ROWS.reduce((sum, [key]) => sum + (tally.faults[key] ?? 0), 0);
}

/** The suite's table: one column per connector, then the details of anything that went wrong. */
export function formatFaultReport(result: FaultSuiteResult, title: string): string[] {
  const { tallies } = result;
  const width = 34;
  const row = (label: string, values: (number | string)[]) =>
    `${label.padEnd(width)}${values.map((v) => String(v).padStart(16)).join('')}`;
  const lines = [
    title,
    `${result.tallies.reduce((s, t) => s + t.requests, 0)} requests, ${(result.wallMs / 1000).toFixed(1)} s wall ` +
      `(${(result.virtualMs / 60_000).toFixed(1)} min on the run's clock); ${result.replays} orchestration replays of the whole history`,
    row(
      '',
      tallies.map((t) => t.connector),
    ),
    'faults injected',
    ...FAULT_ROWS.map(([key, label]) =>
      row(
        `  ${label}`,
        tallies.map((t) => t.faults[key] ?? 0),
      ),
    ),
    row('  total', tallies.map(faultTotal)),
    row(
      'requests',
      tallies.map((t) => t.requests),
    ),
    row(
      '  succeeded',
      tallies.map((t) => t.succeeded),
    ),
    row(
      '  failed as they must (lag > 30 s)',
      tallies.map((t) => t.expectedLagFailures),
    ),
    row(
      'false successes',
      tallies.map((t) => t.falseSuccesses.length),
    ),
    row(
      'false failures',
      tallies.map((t) => t.falseFailures.length),
    ),
    row(
      '  by throttling alone',
      tallies.map((t) => t.failedByThrottling),
    ),
    row(
      '  by lag under 30 s',
      tallies.map((t) => t.failedByLag),
    ),
    row(
      'journal entries missing',
      tallies.map((t) => t.journalMissing.length),
    ),
    row(
      'journal entries doubled',
      tallies.map((t) => t.journalDoubled.length),
    ),
    row(
      'journal entries invented',
      tallies.map((t) => t.journalInvented.length),
    ),
    row(
      'wrong memberships (accounts)',
      tallies.map((t) => t.wrongMemberships.length),
    ),
  ];
  for (const tally of tallies) {
    const details: [string, string[]][] = [
      ['false success', tally.falseSuccesses],
      ['false failure', tally.falseFailures],
      ['journal missing', tally.journalMissing],
      ['journal doubled', tally.journalDoubled],
      ['journal invented', tally.journalInvented],
      ['wrong memberships', tally.wrongMemberships],
    ];
    for (const [label, items] of details) {
      for (const item of items.slice(0, 10)) lines.push(`  ${tally.connector} ${label}: ${item}`);
      if (items.length > 10)
        lines.push(`  ${tally.connector} ${label}: ... ${items.length - 10} more`);
    }
  }
  return lines;
}

/** Whether a run met the targets. */
export function meetsTargets(result: FaultSuiteResult): boolean {
  return result.tallies.every(
    (t) =>
      t.falseSuccesses.length === 0 &&
      t.falseFailures.length === 0 &&
      t.journalMissing.length === 0 &&
      t.journalDoubled.length === 0 &&
      t.journalInvented.length === 0 &&
      t.wrongMemberships.length === 0,
  );
}
