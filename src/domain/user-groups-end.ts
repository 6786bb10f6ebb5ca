import type { UserGroupsVerdict } from './user-groups-verdict';

/** What an operator asks to end a kept cut with: why, and who asks. */
export interface CutEndAsk {
  /** The operator's reason, as typed (a vendor's fix, a ticket). */
  reason: string;
  /** Who: a signed-in caller's name, or which key. */
  byName: string;
  /** When (ISO). */
  at: string;
}

/**
 * What an operator's end of a kept `cut` of a SCIM server's user `groups` attribute comes to
 * (DESIGN invariant 11: the end rests on something seen on the target, not on the word alone):
 * - `ended`: the verdict to keep, when a cut is kept and the connector's last compatibility
 *   run found the attribute complete after the cut was seen (the server was mended since):
 *   learned at the run's time (a cut a connector sees after the run says so again);
 * - `nothing`: no cut is kept, so there is nothing to end;
 * - `refused`: why not yet (no run since the cut, or the last one did not find it complete).
 * `run` is the verdict the connector's last compatibility run gave (undefined: none gave one).
 *
 * @example
 * endCut(connectorCut, runComplete, { reason: 'vendor fix 4.2', byName: 'ada', at: now });
 * // { ended: { verdict: 'complete', by: 'operator', byName: 'ada', endsCutOf: connectorCut.at, ... } }
 */
export function endCut(
  kept: UserGroupsVerdict | undefined,
  run: UserGroupsVerdict | undefined,
  ask: CutEndAsk,
): { ended: UserGroupsVerdict } | { nothing: string } | { refused: string } {
  if (kept === undefined || kept.verdict !== 'cut') {
    return {
      nothing:
        kept === undefined
          ? "nothing is kept of the server's user groups attribute: no cut to end"
          : `the user groups attribute is not kept as cut (${kept.verdict} since ${kept.at}): no cut to end`,
    };
  }
  const cut = `the cut kept since ${kept.at} (${kept.why})`;
  if (run === undefined || run.verdict !== 'complete' || !(run.at > kept.at)) {
    const last =
      run === undefined
        ? 'no compatibility run has told whether the attribute is complete'
        : run.at > kept.at
          ? `the last compatibility run (${run.at}) found it ${run.verdict}`
          : `the last compatibility run that told (${run.at}) is older than the cut`;
    return {
      refused:
        `${cut} ends only on a compatibility run that finds the attribute complete after the ` +
        `cut was seen; ${last}: run one (POST /api/connectors/{name}/compatibility-run) once ` +
        'the server is mended, then end the cut',
    };
  }
  return {
    ended: {
      verdict: 'complete',
      why:
        `${ask.byName} ended ${cut} ("${ask.reason}"), on the compatibility run of ${run.at}` +
        `${run.jobId === undefined ? '' : ` (job ${run.jobId})`}, which found the attribute complete`,
      at: run.at,
      by: 'operator',
      byName: ask.byName,
      endsCutOf: kept.at,
      endedAt: ask.at,
      ...(run.jobId === undefined ? {} : { jobId: run.jobId }),
    },
  };
}
