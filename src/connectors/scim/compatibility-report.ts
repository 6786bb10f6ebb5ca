import {
  describeSetting,
  type ActionVerdict,
  type CompatibilityPoint,
  type CompatibilityResult,
} from '../../domain/compatibility-result';
import { oneLine } from '../http/redact';
import type { LeftBehind } from './compatibility-cleanup';
import type { DeclaredFeatures } from './declared-features';
import type { TestGroup } from './compatibility-groups';
import type { CompatibilityStep } from './compatibility-session';
import type { UserGroupsFinding } from './compatibility-user-groups';

export type { CompatibilityStep } from './compatibility-session';
export type { CompatibilityPoint } from '../../domain/compatibility-result';

/** The SCIM compatibility run's result: the kind-neutral result, and what this run did. */
export interface CompatibilityReport extends CompatibilityResult {
  /** The base URL as configured. */
  baseUrl: string;
  testAccount: string;
  /** What the server's ServiceProviderConfig declares: claims the run reads, never verdicts. */
  declared?: DeclaredFeatures;
  /** The group granted and revoked; `temporary` when the run created it (and removed it). */
  group?: TestGroup;
  /** Whether the user's `groups` attribute listed the membership the run made, and dropped it. */
  userGroups: UserGroupsFinding;
  steps: CompatibilityStep[];
  /** What was removed, or what is left behind. */
  cleanup: string;
  leftBehind: LeftBehind[];
  /** True when every point fits as configured. */
  fits: boolean;
}

const MARK = { true: '+', false: '-', undefined: '?' } as const;

function pointLines(point: CompatibilityPoint): string[] {
  const lines = [`${point.number}. ${point.title.padEnd(62)} ${point.outcome.toUpperCase()}`];
  if (point.fitsWith !== undefined) {
    lines.push(`   fits with ${point.fitsWith.map(describeSetting).join(', ')}`);
  }
  for (const check of point.checks) {
    const setting =
      check.withSetting === undefined ? '' : ` [with ${describeSetting(check.withSetting)}]`;
    lines.push(`   ${MARK[String(check.holds) as keyof typeof MARK]} ${check.note}${setting}`);
    for (const exchange of check.evidence) {
      lines.push(
        `       > ${exchange.request}${exchange.requestBody ? ` ${oneLine(exchange.requestBody, 160)}` : ''}`,
      );
      lines.push(`       < ${exchange.status} ${oneLine(exchange.answer, 160)}`);
    }
  }
  if (point.advice !== undefined) lines.push(`   What to do: ${point.advice}`);
  return lines;
}

function actionLine(verdict: ActionVerdict, shown: ReadonlySet<string>): string {
  const own = (verdict.needs ?? []).filter((n) => !shown.has(n.setting));
  const needs = own.length === 0 ? '' : ` (with ${own.map(describeSetting).join(', ')})`;
  const point = verdict.point === undefined ? '' : ` [point ${verdict.point}]`;
  return `  ${verdict.action.padEnd(15)} ${verdict.outcome.toUpperCase().padEnd(10)} ${verdict.reason}${needs}${point}`;
}

/** ServiceProviderConfig's claims in one line (RFC 7643 §5). */
function describeDeclared(declared: DeclaredFeatures): string {
  const yesNo = (value: boolean | undefined) => (value === undefined ? '?' : value ? 'yes' : 'no');
  const max =
    declared.filterMaxResults === undefined ? '' : `, at most ${declared.filterMaxResults} results`;
  return `patch ${yesNo(declared.patch)}, filter ${yesNo(declared.filter)}${max}, changePassword ${yesNo(declared.changePassword)} (ServiceProviderConfig)`;
}

/**
 * The compatibility run as an operator reads it: the six verdicts, each with the requests
 * and answers behind it and what to do, the settings to use, which actions will work, the
 * steps, the cleanup and the verdict.
 */
export function formatCompatibilityReport(report: CompatibilityReport): string {
  const group =
    report.group === undefined
      ? ''
      : `; group: ${report.group.displayName} (${report.group.id})${report.group.temporary ? ', created for the run' : ''}`;
  const lines = [
    `Compatibility run for connector "${report.connector}" at ${report.baseUrl} (${report.at})`,
    `Test account: ${report.testAccount}${group}`,
    ...(report.declared === undefined
      ? []
      : [`The server declares: ${describeDeclared(report.declared)}`]),
    '',
  ];
  for (const point of report.points) lines.push(...pointLines(point));
  lines.push(
    '',
    `The user's groups attribute: ${report.userGroups.outcome.toUpperCase()}: ${report.userGroups.note}`,
  );
  for (const exchange of report.userGroups.evidence) {
    lines.push(
      `   > ${exchange.request}`,
      `   < ${exchange.status} ${oneLine(exchange.answer, 160)}`,
    );
  }
  lines.push('', 'Suggested settings:');
  if (report.suggestedSettings.length === 0) lines.push('  none');
  for (const suggestion of report.suggestedSettings) {
    lines.push(
      `  "${suggestion.setting}": "${suggestion.value}"  (point ${suggestion.point}, ${suggestion.tried ? 'tried' : 'not tried'}: ${suggestion.reason})`,
    );
  }
  // A base URL every action needs is said once, not on every line.
  const everywhere = report.suggestedSettings.filter((s) => s.tried && s.setting === 'baseUrl');
  lines.push(
    '',
    `What will work${everywhere.length === 0 ? '' : ` (with ${everywhere.map(describeSetting).join(', ')})`}:`,
  );
  const shown = new Set(everywhere.map((s) => s.setting));
  for (const verdict of report.actions) lines.push(actionLine(verdict, shown));
  lines.push('', 'Steps:');
  for (const step of report.steps) {
    lines.push(
      `  ${step.outcome.padEnd(9)} ${step.name}${step.detail === '' ? '' : `: ${step.detail}`}`,
    );
  }
  lines.push('', `Cleanup: ${report.cleanup}`, `Verdict: ${report.summary}`);
  return lines.join('\n');
}
