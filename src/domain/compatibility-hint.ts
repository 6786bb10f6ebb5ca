import {
  describeSetting,
  type CompatibilityResult,
  type ServiceAction,
  type SettingValue,
} from './compatibility-result';
import type { SerializedError } from './errors';

/** Statuses that say nothing about the target's support for an action: retry, not found, conflict. */
const NOT_A_REFUSAL = new Set([401, 404, 408, 409, 429]);

/**
 * Whether an error is the target refusing (or not carrying out) what was asked, as opposed to
 * a failure of reaching it, a missing object or a conflict: only such an error can be the
 * unsupported action a compatibility run found.
 */
export function isRefusalByTarget(error: SerializedError): boolean {
  if (
    error.code === 'MEMBERSHIP_MISMATCH' ||
    error.code === 'ACCOUNT_STATE_NOT_CONFIRMED' ||
    error.code === 'MEMBERSHIP_READ_UNAVAILABLE' ||
    // Refused before sending, on the target's own declaration (ServiceProviderConfig).
    error.code === 'OPERATION_NOT_SUPPORTED'
  ) {
    return true;
  }
  const { status } = error;
  return (
    status !== undefined &&
    ((status >= 400 && status < 500 && !NOT_A_REFUSAL.has(status)) || status === 501)
  );
}

/** The part of a compatibility run an explained error carries in `details.compatibilityRun`. */
export interface CompatibilityHint {
  at: string;
  jobId?: string;
  action: ServiceAction;
  outcome: 'will fail' | 'needs settings';
  point?: number;
  reason: string;
  needs?: SettingValue[];
}

/**
 * A failed action's error, said again in the light of the connector's last compatibility
 * run: when the run found the action unsupported ("setPassword is not supported by this
 * server: compatibility run of <date>, point 5"), or found it working only with settings
 * the connector does not have. The target's own answer stays in the message; the code
 * stays, so callers that branch on it are unaffected. Any other error comes back unchanged.
 *
 * @example
 * explainFailure(error, 'setPassword', lastRun, (setting) => currentSettings[setting]);
 */
export function explainFailure(
  error: SerializedError,
  action: string,
  run: CompatibilityResult | undefined,
  currentSetting: (setting: string) => string | undefined,
): SerializedError {
  const verdict = run?.actions.find((a) => a.action === action);
  if (run === undefined || verdict === undefined || !isRefusalByTarget(error)) return error;
  const of = `compatibility run of ${run.at}${verdict.point === undefined ? '' : `, point ${verdict.point}`}`;
  let said: string;
  let hint: CompatibilityHint;
  const base = {
    at: run.at,
    ...(run.jobId === undefined ? {} : { jobId: run.jobId }),
    action: verdict.action,
    ...(verdict.point === undefined ? {} : { point: verdict.point }),
    reason: verdict.reason,
  };
  if (verdict.outcome === 'will fail') {
    const changed = Object.entries(run.judgedSettings)
      .filter(([setting, value]) => currentSetting(setting) !== value)
      .map(([setting]) => setting);
    said =
      `${action} is not supported by this server: ${of} (${verdict.reason})` +
      (changed.length === 0
        ? ''
        : `; the connector's ${changed.join(', ')} changed since that run: run it again`);
    hint = { ...base, outcome: 'will fail' };
  } else {
    const missing = (verdict.needs ?? []).filter((n) => currentSetting(n.setting) !== n.value);
    if (verdict.outcome !== 'works' || missing.length === 0) return error;
    const has = missing
      .map((n) => `${n.setting}: ${currentSetting(n.setting) ?? '(not set)'}`)
      .join(', ');
    said = `${action} needs ${missing.map(describeSetting).join(', ')} on this server: ${of}; the connector has ${has}`;
    hint = { ...base, outcome: 'needs settings', needs: missing };
  }
  return {
    ...error,
    message: `${said}. The server's answer: ${error.message}`,
    details: { ...error.details, compatibilityRun: hint },
  };
}
