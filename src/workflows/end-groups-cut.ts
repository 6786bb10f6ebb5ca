import { userGroupsVerdictOf } from '../connectors/scim/compatibility-user-groups';
import type { UserGroupsFinding } from '../connectors/scim/compatibility-user-groups';
import { ProvisioningError } from '../domain/errors';
import { operatorText } from '../domain/operator-text';
import { endCut, type CutEndAsk } from '../domain/user-groups-end';
import type { UserGroupsVerdict } from '../domain/user-groups-verdict';
import type { WorkflowServices } from './workflow-services';

/** The longest reason an operator may give (it is kept, and shown in the health report). */
export const CUT_END_REASON_MAX = 300;

/** What ending a cut did: whether it ended one, and the verdict kept now. */
export interface CutEndResult {
  connector: string;
  ended: boolean;
  /** Why nothing was ended, where nothing was. */
  note?: string;
  userGroups?: UserGroupsVerdict;
}

/**
 * An operator ends the cut kept for a SCIM connector's user `groups` attribute (the API's
 * `POST /api/connectors/{name}/user-groups/end-cut`, the CLI's `end-groups-cut`): only on
 * the connector's last compatibility run, when it found the attribute complete after the cut
 * was seen (`endCut`); kept for every worker as the kept verdicts are (a cut seen since is
 * kept over it). Throws OPERATION_NOT_SUPPORTED for a connector whose kind has no
 * compatibility run, REQUEST_INVALID for a reason that is empty, too long or holds control
 * characters, REQUEST_CONFLICT when no such run backs the end.
 *
 * @example
 * await endGroupsCut(services, 'app', { reason: 'vendor fix 4.2', byName: 'ada', at: now });
 * // { connector: 'app', ended: true, userGroups: { verdict: 'complete', by: 'operator', ... } }
 */
export async function endGroupsCut(
  services: Pick<WorkflowServices, 'registry' | 'compatibility' | 'connectorStates'>,
  connector: string,
  ask: CutEndAsk,
): Promise<CutEndResult> {
  const kind = services.registry.kindOf(connector);
  if (kind?.compatibilityRun === undefined) {
    throw new ProvisioningError(
      'OPERATION_NOT_SUPPORTED',
      `connector "${connector}"${kind === undefined ? '' : ` (${kind.kind})`} keeps no verdict ` +
        'on a user groups attribute: it is for SCIM servers',
      { object: connector },
    );
  }
  const reason = operatorText(
    `connector "${connector}": the reason to end the user groups cut`,
    ask.reason,
    CUT_END_REASON_MAX,
    connector,
  );
  const [kept, last] = await Promise.all([
    services.connectorStates.readUserGroups(connector),
    services.compatibility.last(connector),
  ]);
  const finding = (last as { userGroups?: UserGroupsFinding } | undefined)?.userGroups;
  const run =
    last === undefined || finding === undefined
      ? undefined
      : userGroupsVerdictOf({ ...last, userGroups: finding });
  const judged = endCut(kept, run, { ...ask, reason });
  if ('refused' in judged) {
    throw new ProvisioningError('REQUEST_CONFLICT', `connector "${connector}": ${judged.refused}`, {
      object: connector,
    });
  }
  if ('nothing' in judged) {
    return {
      connector,
      ended: false,
      note: judged.nothing,
      ...(kept === undefined ? {} : { userGroups: kept }),
    };
  }
  await services.connectorStates.recordUserGroups(connector, judged.ended);
  const now = await services.connectorStates.readUserGroups(connector);
  const ended = now?.by === 'operator' && now.endedAt === judged.ended.endedAt;
  return {
    connector,
    ended,
    ...(ended
      ? {}
      : { note: 'a cut seen since the run was kept over the end: the server still cuts it' }),
    ...(now === undefined ? {} : { userGroups: now }),
  };
}
