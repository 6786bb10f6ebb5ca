import type {
  CompatibilityCheck,
  CompatibilityPoint,
  PointOutcome,
  SettingValue,
  SuggestedSetting,
} from '../../domain/compatibility-result';

/** Spec: Errors, compatibility points 1-6, each with the parts the run must see work. */
export const COMPATIBILITY_POINTS = [
  { title: 'endpoints under a path that ends in /scim/v2/', aspects: ['endpoints'] },
  { title: 'bearer or Basic authentication', aspects: ['credentials'] },
  { title: 'the account ID accepted as a group member value', aspects: ['member value'] },
  { title: 'filters eq and co', aspects: ['eq', 'co'] },
  {
    title: 'PATCH for users and groups, including password and active',
    aspects: ['user attributes', 'password', 'active', 'group members add', 'group members remove'],
  },
  { title: 'a last-logon attribute under a known name', aspects: ['last logon'] },
] as const;

/** What fails when a part of point 5 does not work. */
const FAILS_WITH: Record<string, string> = {
  'user attributes': 'update',
  password: 'setPassword',
  active: 'lock and unlock',
  'group members add': 'grant and setMemberships',
  'group members remove': 'revoke and setMemberships',
};

function uniqueSettings(settings: SettingValue[]): SettingValue[] {
  const seen = new Map(settings.map((s) => [`${s.setting}=${s.value}`, s]));
  return [...seen.values()];
}

/**
 * A point's verdict from its checks (DESIGN invariant 11): "does not fit" when something
 * was seen to fail as configured; "fits" only when every part of the point was seen to
 * work; otherwise "could not tell". Checks made with one of the point's own suggested
 * settings do not count here: they say which settings make it fit.
 */
export function decidePoint(
  aspects: readonly string[],
  checks: readonly CompatibilityCheck[],
): { outcome: PointOutcome; failing: string[]; unseen: string[]; fitsWith?: SettingValue[] } {
  const asConfigured = checks.filter((c) => c.withSetting === undefined);
  const failing = [...new Set(asConfigured.filter((c) => c.holds === false).map((c) => c.aspect))];
  const unseen = aspects.filter(
    (aspect) => !asConfigured.some((c) => c.aspect === aspect && c.holds === true),
  );
  if (failing.length === 0)
    return { outcome: unseen.length === 0 ? 'fits' : 'could not tell', failing, unseen };
  const fixes = failing.map((aspect) => {
    const tried = checks.filter((c) => c.aspect === aspect && c.withSetting !== undefined);
    return tried.some((c) => c.holds === true) && !tried.some((c) => c.holds === false)
      ? tried.flatMap((c) => (c.withSetting === undefined ? [] : [c.withSetting]))
      : undefined;
  });
  const fitsWith = fixes.every((fix) => fix !== undefined)
    ? uniqueSettings(fixes.flat())
    : undefined;
  return {
    outcome: 'does not fit',
    failing,
    unseen,
    ...(fitsWith === undefined ? {} : { fitsWith }),
  };
}

function reasonOf(
  outcome: PointOutcome,
  failing: string[],
  unseen: string[],
  checks: readonly CompatibilityCheck[],
  context: RunContext,
): string {
  const asConfigured = checks.filter((c) => c.withSetting === undefined);
  if (outcome === 'does not fit') {
    return asConfigured
      .filter((c) => c.holds === false && failing.includes(c.aspect))
      .map((c) => c.note)
      .join('; ');
  }
  if (outcome === 'fits') {
    const firstPerAspect = new Map<string, string>();
    for (const c of asConfigured)
      if (c.holds === true && !firstPerAspect.has(c.aspect)) firstPerAspect.set(c.aspect, c.note);
    return [...firstPerAspect.values()].join('; ');
  }
  return unseen
    .map((aspect) => {
      const why = asConfigured.find((c) => c.aspect === aspect && c.holds === undefined);
      return `${aspect}: ${why?.note ?? `not tried: ${context.stopped ?? 'the run did not get that far (see the steps)'}`}`;
    })
    .join('; ');
}

const quoted = (settings: readonly SettingValue[]) =>
  settings.map((s) => `"${s.setting}": "${s.value}"`).join(', ');

function adviceOf(
  number: number,
  outcome: PointOutcome,
  failing: string[],
  unseen: string[],
  fitsWith: SettingValue[] | undefined,
  untried: SuggestedSetting[],
  context: RunContext,
): string | undefined {
  if (outcome === 'fits') return undefined;
  if (fitsWith !== undefined) return `set ${quoted(fitsWith)} in the connector's settings`;
  if (untried.length > 0) return untried.map((s) => s.reason).join('; ');
  const cannot = outcome === 'does not fit';
  if (!cannot && context.stopped !== undefined && number > 2) {
    return `first fix what stopped the run (${context.stopped}), then run again`;
  }
  if (!cannot && context.noGroups && (number === 3 || number === 5)) {
    return 'the server has no groups: memberships cannot be managed on it (grant, revoke and setMemberships will fail); no setting changes that';
  }
  switch (number) {
    case 1:
      return cannot
        ? "set the base URL to the part of the server's SCIM address before /scim/v2/ (the run looked in the usual places and found no SCIM endpoint)"
        : 'make sure the server can be reached from the service, then run again';
    case 2:
      return cannot
        ? "check the credential the connector's auth setting names: the server refused it"
        : 'configure bearer or Basic credentials for the connector and run again';
    case 3:
      return cannot
        ? 'the server took neither the account ID nor its own id as a member value: memberships cannot be written on it'
        : 'give the run a group to use (create one on the server, or name one: CLI --group, API "groupName") and run again; a server without groups cannot have memberships managed';
    case 4:
      return cannot
        ? failing.includes('eq')
          ? 'accounts and groups are looked up with eq: the service cannot work with this server'
          : 'group search (co) will not work on this server; grants by group name use eq and still work'
        : 'give the run a group to search for (CLI --group, API "groupName") and run again';
    case 5:
      if (cannot) {
        return `on this server these will fail: ${failing.map((aspect) => FAILS_WITH[aspect] ?? aspect).join(', ')}`;
      }
      return unseen.length === 1 && unseen[0] === 'password'
        ? 'a password cannot be read back: before relying on setPassword, set one on a test account and sign in with it'
        : 'run again once the steps before could be done (see the steps)';
    default:
      return 'set "advanced.lastLogonAttribute" to the attribute that holds the last logon, if the server has one; otherwise last-logon reads answer "none found"';
  }
}

/** What the run as a whole knows that explains its points. */
export interface RunContext {
  /** Why the run stopped after the endpoints, if it did. */
  stopped?: string;
  /** The server has no groups at all. */
  noGroups: boolean;
}

/** The six points as a checklist: verdict, reason, what to do, and the checks with their evidence. */
export function judgePoints(
  checks: readonly CompatibilityCheck[][],
  suggestions: readonly SuggestedSetting[],
  context: RunContext,
): CompatibilityPoint[] {
  return COMPATIBILITY_POINTS.map(({ title, aspects }, index) => {
    const number = index + 1;
    const own = checks[index] ?? [];
    const { outcome, failing, unseen, fitsWith } = decidePoint(aspects, own);
    const untried = suggestions.filter((s) => s.point === number && !s.tried);
    const advice = adviceOf(number, outcome, failing, unseen, fitsWith, untried, context);
    return {
      number,
      title,
      outcome,
      reason: reasonOf(outcome, failing, unseen, own, context),
      ...(advice === undefined ? {} : { advice }),
      ...(fitsWith === undefined ? {} : { fitsWith }),
      checks: own,
    };
  });
}
