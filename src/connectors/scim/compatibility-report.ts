import { oneLine } from '../http/redact';
import type { HttpExchange } from '../http/transport';

export type PointOutcome = 'fits' | 'does not fit' | 'could not tell';

/** Spec: Errors, compatibility points 1-6. */
export const COMPATIBILITY_POINTS = [
  'endpoints under a path that ends in /scim/v2/',
  'bearer or Basic authentication',
  'the account ID accepted as a group member value',
  'filters eq and co',
  'PATCH for users and groups, including password and active',
  'a last-logon attribute under a known name',
] as const;

export interface CompatibilityCheck {
  /** true: shows the point holds; false: shows it does not; undefined: shows nothing. */
  holds: boolean | undefined;
  note: string;
  evidence: HttpExchange[];
}

export interface CompatibilityPoint {
  number: number;
  title: string;
  outcome: PointOutcome;
  checks: CompatibilityCheck[];
}

export interface CompatibilityStep {
  name: string;
  outcome: 'succeeded' | 'failed' | 'skipped';
  detail: string;
}

export interface CompatibilityReport {
  connector: string;
  baseUrl: string;
  testAccount: string;
  group?: { id: string; displayName: string };
  points: CompatibilityPoint[];
  steps: CompatibilityStep[];
  cleanup: string;
  /** True when every point fits. */
  fits: boolean;
}

/** The compatibility run as an operator reads it: six verdicts, each with its evidence. */
export function formatCompatibilityReport(report: CompatibilityReport): string {
  const lines = [
    `Compatibility run for connector "${report.connector}" at ${report.baseUrl}`,
    `Test account: ${report.testAccount}` +
      (report.group === undefined
        ? ''
        : `; group: ${report.group.displayName} (${report.group.id})`),
    '',
  ];
  for (const point of report.points) {
    lines.push(`${point.number}. ${point.title.padEnd(62)} ${point.outcome.toUpperCase()}`);
    for (const check of point.checks) {
      const mark = check.holds === true ? '+' : check.holds === false ? '-' : '?';
      lines.push(`   ${mark} ${check.note}`);
      for (const exchange of check.evidence) {
        lines.push(
          `       > ${exchange.request}${exchange.requestBody ? ` ${oneLine(exchange.requestBody, 160)}` : ''}`,
        );
        lines.push(`       < ${exchange.status} ${oneLine(exchange.answer, 160)}`);
      }
    }
  }
  lines.push('', 'Steps:');
  for (const step of report.steps) {
    lines.push(
      `  ${step.outcome.padEnd(9)} ${step.name}${step.detail === '' ? '' : `: ${step.detail}`}`,
    );
  }
  const fitting = report.points.filter((point) => point.outcome === 'fits').length;
  lines.push(
    '',
    `Cleanup: ${report.cleanup}`,
    `Verdict: ${report.fits ? 'the server fits' : 'the server does not fit, or could not be judged on every point'} (${fitting} of ${report.points.length} points fit)`,
  );
  return lines.join('\n');
}
