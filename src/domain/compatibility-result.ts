import type { EffectiveChange } from './journal-entry';
import { ACTION_TYPES } from './provisioning-request';

/**
 * What a compatibility run found out about a target (spec: Errors, compatibility points; "a
 * test run with a test account shows whether a server fits"), in a form any connector kind
 * with such a run fills and any reader (CLI, API, console, the service's own errors) shows:
 * a verdict per point with the requests and answers behind it, the settings the run saw
 * working, and which of the service's actions will work. DESIGN invariant 11: every verdict
 * rests on something the run saw; where it saw nothing, it says "could not tell" and why.
 */

/** A point's verdict: as the connector is configured. */
export type PointOutcome = 'fits' | 'does not fit' | 'could not tell';

/** The run's verdict over every point. */
export type CompatibilityVerdict =
  'fits' | 'fits with the suggested settings' | 'does not fit' | 'could not tell';

/**
 * The service's actions, as an operator asks "will it work on this server?": a request's
 * actions (by the same names, so a failed step finds its verdict), then the catalogue import,
 * group search and last-logon reads.
 */
export const SERVICE_ACTIONS = [...ACTION_TYPES, 'import', 'groupSearch', 'lastLogon'] as const;

export type ServiceAction = (typeof SERVICE_ACTIONS)[number];

export type ActionOutcome = 'works' | 'will fail' | 'untested';

/** One request and its answer, as sent and received, with every secret redacted. */
export interface Evidence {
  request: string;
  requestBody?: string;
  status: number;
  answer: string;
}

/** A connector setting and its value, as written in the connector's settings. */
export interface SettingValue {
  /** `memberValue`, `memberRemoveStyle`, `emailUpdateStyle`, `baseUrl`, `auth.type`... */
  setting: string;
  value: string;
}

/** A setting the run suggests, with the point it is for and whether it was tried. */
export interface SuggestedSetting extends SettingValue {
  point: number;
  /**
   * True: the run tried the server with it and saw the point work. False: what the server
   * asks for, which the run could not try (credentials it does not have).
   */
  tried: boolean;
  reason: string;
}

/** One thing the run tried (or could not try) for a point. */
export interface CompatibilityCheck {
  /** The part of the point it is about: `co`, `password`, `member value`... */
  aspect: string;
  /** true: seen to work; false: seen to fail; undefined: not seen (the note says why). */
  holds: boolean | undefined;
  note: string;
  evidence: Evidence[];
  /** Set when the check was made with a suggested setting of its own point, not as configured. */
  withSetting?: SettingValue;
}

/** One compatibility point as a checklist shows it. */
export interface CompatibilityPoint {
  number: number;
  title: string;
  outcome: PointOutcome;
  /** Why: what was seen, or what could not be tried. */
  reason: string;
  /** What the operator can do, when the point does not fit or could not be told. */
  advice?: string;
  /** Settings with which the run saw this point fit (tried), when it does not fit as configured. */
  fitsWith?: SettingValue[];
  checks: CompatibilityCheck[];
}

/** Whether one of the service's actions will work on the target. */
export interface ActionVerdict {
  action: ServiceAction;
  outcome: ActionOutcome;
  /** What the run saw (or why it did not try), naming the request. */
  reason: string;
  /** The compatibility point that decides it, when there is one. */
  point?: number;
  /** Settings it works with beyond the connector's as configured (suggested and tried). */
  needs?: SettingValue[];
}

/** The result of one compatibility run: kept per connector, the last run replacing the one before. */
/**
 * One effective change a compatibility run made on the target (its test account's), as the
 * change journal records it under the run's job (spec: the journal of effective changes).
 */
export interface CompatibilityChange extends EffectiveChange {
  /** The run's own count of its steps: the journal entry's step. */
  step: number;
  accountId: string;
  /** When the step that made it ended (ISO 8601). */
  at: string;
}

export interface CompatibilityResult {
  connector: string;
  /** When the run ended (ISO 8601). */
  at: string;
  /** The job that ran it, when it ran as a job (`GET /api/jobs/{jobId}`). */
  jobId?: string;
  verdict: CompatibilityVerdict;
  /** The verdict in one line, with the settings to use. */
  summary: string;
  points: CompatibilityPoint[];
  suggestedSettings: SuggestedSetting[];
  actions: ActionVerdict[];
  /** The connector's settings the run judged (setting -> value): whether it still applies. */
  judgedSettings: Record<string, string>;
  /** Set when the kept result had to leave out its evidence (too big to keep whole). */
  evidenceDropped?: boolean;
  /** The effective changes the run made on the target; absent in results kept before. */
  changes?: CompatibilityChange[];
}

/** `memberValue: scimId`, as an operator writes it. */
export function describeSetting(setting: SettingValue): string {
  return `${setting.setting}: ${setting.value}`;
}

/**
 * The verdict over the points: "fits" when every point fits as configured; "fits with the
 * suggested settings" when every other point fits with settings the run tried; "does not
 * fit" when a point does not fit and no tried setting makes it; else "could not tell".
 *
 * @example
 * verdictOf([{ outcome: 'fits' }, { outcome: 'does not fit', fitsWith: [{ setting: 'memberValue', value: 'scimId' }] }]);
 * // 'fits with the suggested settings'
 */
export function verdictOf(
  points: ReadonlyArray<Pick<CompatibilityPoint, 'outcome' | 'fitsWith'>>,
): CompatibilityVerdict {
  const fixed = (p: Pick<CompatibilityPoint, 'outcome' | 'fitsWith'>) =>
    p.outcome === 'does not fit' && (p.fitsWith?.length ?? 0) > 0;
  if (points.every((p) => p.outcome === 'fits')) return 'fits';
  if (points.some((p) => p.outcome === 'does not fit' && !fixed(p))) return 'does not fit';
  if (points.some((p) => p.outcome === 'could not tell')) return 'could not tell';
  return 'fits with the suggested settings';
}

/** The run's verdict in one line, naming the points that decide it and the settings to use. */
export function summaryOf(
  verdict: CompatibilityVerdict,
  points: ReadonlyArray<Pick<CompatibilityPoint, 'number' | 'outcome' | 'fitsWith'>>,
): string {
  const fitting = points.filter((p) => p.outcome === 'fits').length;
  const numbers = (outcome: PointOutcome, fixed?: boolean) =>
    points
      .filter(
        (p) =>
          p.outcome === outcome && (fixed === undefined || fixed === (p.fitsWith?.length ?? 0) > 0),
      )
      .map((p) => p.number)
      .join(', ');
  const settings = [
    ...new Set(points.flatMap((p) => p.fitsWith ?? []).map((s) => describeSetting(s))),
  ];
  const count = `${fitting} of ${points.length} points fit as configured`;
  switch (verdict) {
    case 'fits':
      return `the server fits (${count})`;
    case 'fits with the suggested settings':
      return `the server fits with ${settings.join(', ')} (${count})`;
    case 'does not fit': {
      const withSettings = settings.length === 0 ? '' : `; set ${settings.join(', ')} as well`;
      return `the server does not fit: point(s) ${numbers('does not fit', false)} (${count}${withSettings})`;
    }
    case 'could not tell':
      return `could not tell whether the server fits: point(s) ${numbers('could not tell')} could not be tried (${count})`;
  }
}
