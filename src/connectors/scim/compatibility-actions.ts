import {
  SERVICE_ACTIONS,
  type ActionVerdict,
  type ServiceAction,
  type SettingValue,
} from '../../domain/compatibility-result';
import type { CompatibilitySession } from './compatibility-session';

/** Which actions a tried setting changes: they work only with it. */
const SETTING_AFFECTS: Record<string, readonly ServiceAction[] | 'all'> = {
  baseUrl: 'all',
  memberValue: ['grant', 'revoke', 'setMemberships'],
  memberRemoveStyle: ['revoke', 'setMemberships'],
  emailUpdateStyle: ['update'],
};

function needsOf(action: ServiceAction, inEffect: readonly SettingValue[]): SettingValue[] {
  return inEffect.filter((s) => {
    const affects = SETTING_AFFECTS[s.setting];
    return affects === 'all' || affects?.includes(action) === true;
  });
}

/** `setMemberships` adds and removes members exactly as grant and revoke do. */
function setMemberships(
  grant: ActionVerdict,
  revoke: ActionVerdict,
): Omit<ActionVerdict, 'action'> {
  const how = 'it adds and removes members as grant and revoke do';
  const failing = [grant, revoke].find((v) => v.outcome === 'will fail');
  if (failing !== undefined) {
    return {
      outcome: 'will fail',
      reason: `${how}, and ${failing.action} will fail: ${failing.reason}`,
      ...(failing.point === undefined ? {} : { point: failing.point }),
    };
  }
  const untried = [grant, revoke].find((v) => v.outcome === 'untested');
  if (untried !== undefined) {
    return {
      outcome: 'untested',
      reason: `${how}, and ${untried.action} was not tested: ${untried.reason}`,
    };
  }
  return { outcome: 'works', reason: `${how}, and both were seen to work` };
}

/**
 * The service's actions as an operator asks "will it work on this server?": what the run
 * saw of each (works / will fail), or why it did not try (untested); with the settings the
 * run saw it work with, when they differ from the connector's.
 */
export function actionTable(s: CompatibilitySession, notReached: string): ActionVerdict[] {
  const inEffect = s.inEffect();
  const verdicts = new Map<ServiceAction, ActionVerdict>();
  for (const action of SERVICE_ACTIONS) {
    const seen = s.observed.get(action) ?? { outcome: 'untested' as const, reason: notReached };
    verdicts.set(action, { action, ...seen });
  }
  const grant = verdicts.get('grant') as ActionVerdict;
  const revoke = verdicts.get('revoke') as ActionVerdict;
  verdicts.set('setMemberships', { action: 'setMemberships', ...setMemberships(grant, revoke) });
  return [...verdicts.values()].map((verdict) => {
    const needs = verdict.outcome === 'works' ? needsOf(verdict.action, inEffect) : [];
    return needs.length === 0 ? verdict : { ...verdict, needs };
  });
}
