/**
 * What the service learned of a SCIM server's user `groups` attribute (RFC 7643 §4.1.2),
 * kept for the connector across workers and restarts (table `ConnectorStates`):
 * - `cut`: it was seen to leave out a group the account is in (by a connector's read, whose
 *   member list or members filter showed the membership, or by a compatibility run): its
 *   silence is never taken for a non-membership again;
 * - `complete`: a compatibility run, which an operator starts, found it listing the group its
 *   test account was in and dropping it after the revoke: the operator's word that ends an
 *   earlier `cut` that a compatibility run recorded (until a read catches it cut again). It
 *   never ends a `cut` a connector caught (a member list that showed the account, left out
 *   of the attribute): the run tested one ordinary group, not the kind (nested, dynamic)
 *   that was left out, so that cut is kept ({@link keptVerdictAfter}).
 * - `complete` by an `operator`: an operator ended a cut (any), on a compatibility run that
 *   found the attribute complete after the cut was seen (`endCutByOperator`): the server was
 *   mended. A connector that catches it cut after that says so again.
 * Nothing in it is a secret.
 */
export interface UserGroupsVerdict {
  verdict: 'cut' | 'complete';
  /** Why, as an operator reads it: the group left out, or the run and what it saw. */
  why: string;
  /** When it was learned (ISO): an operator's end, when the run it rests on saw the attribute. */
  at: string;
  /** Who found it; a row kept without it is taken as a connector's (the safe side). */
  by: 'connector' | 'compatibility run' | 'operator';
  /** The compatibility run's job, where one learned it (or an operator's end rests on). */
  jobId?: string;
  /** Who ended the cut, where an operator did: a signed-in caller's name, or which key. */
  byName?: string;
  /** An operator's end: when the cut it ended was seen (`at` of that cut). */
  endsCutOf?: string;
  /** An operator's end: when the operator ended it (ISO). */
  endedAt?: string;
}

/** Where connectors keep their verdicts on the attribute, shared by every worker. */
export interface UserGroupsVerdicts {
  /** The connector's kept verdict; undefined when none was ever kept. */
  readUserGroups(connector: string): Promise<UserGroupsVerdict | undefined>;
  /** Keeps the connector's verdict, as {@link keptVerdictAfter} says against the one kept. */
  recordUserGroups(connector: string, verdict: UserGroupsVerdict): Promise<void>;
}

/** Whether a connector caught the cut (a kept row that does not say is taken as one). */
function caughtByConnector(verdict: UserGroupsVerdict): boolean {
  return verdict.verdict === 'cut' && verdict.by !== 'compatibility run';
}

/**
 * The verdict to keep when `incoming` is recorded over `kept` (whatever order they arrive
 * in, from any worker): an operator's end replaces the cut it ended and anything older (a
 * cut seen after the one it ended, while the operator decided, is kept); a cut a
 * connector caught is otherwise never replaced; a cut a connector catches replaces anything
 * but an operator's end resting on a run after it was seen (a worker keeping late a cut it
 * saw before the server was mended); between the rest, the newer (`at`) wins, so an older verdict
 * written late never undoes a newer one.
 *
 * @example
 * keptVerdictAfter(connectorCut, compatibilityComplete); // connectorCut
 */
export function keptVerdictAfter(
  kept: UserGroupsVerdict | undefined,
  incoming: UserGroupsVerdict,
): UserGroupsVerdict {
  if (kept === undefined) return incoming;
  if (incoming.by === 'operator') {
    return kept.at <= (incoming.endsCutOf ?? incoming.at) ? incoming : kept;
  }
  if (caughtByConnector(kept)) return kept;
  if (caughtByConnector(incoming)) {
    return kept.by === 'operator' && kept.at >= incoming.at ? kept : incoming;
  }
  return incoming.at >= kept.at ? incoming : kept;
}

/**
 * Why a kept `cut` verdict makes the attribute's silence worthless, as a step's notices and
 * errors say it: what was seen, when, and how an operator ends it.
 *
 * @example
 * keptCut({ verdict: 'cut', why: 'it left out group Lab', at: '2026-11-23T08:00:00.000Z', by: 'connector' });
 * // 'it left out group Lab (kept for this connector since 2026-11-23T08:00:00.000Z: ...)'
 */
export function keptCut(verdict: UserGroupsVerdict): string {
  const ends = caughtByConnector(verdict)
    ? 'a connector caught it, and a compatibility run does not end it: an operator ends it ' +
      '(POST /api/connectors/{name}/user-groups/end-cut) once a compatibility run finds the ' +
      'attribute complete'
    : 'a compatibility run that finds the attribute complete ends it';
  return `${verdict.why} (kept for this connector since ${verdict.at}: ${ends})`;
}
