import type { Connector } from '../../connectors/connector';
import type { TargetAccount } from '../../domain/account';
import type { AccountRecord } from '../../domain/account-record';
import { judgeNameMatch } from '../../domain/account-relink';
import { ProvisioningError } from '../../domain/errors';
import type { WorkflowServices } from '../workflow-services';

/**
 * A lookup found an account by its account ID, and the record links another object that a
 * read by its id did not show (`judgeNameMatch`): throws ACCOUNT_EXISTS, naming both ids,
 * unless that "not found" may be lag; then the caller addresses the linked object by its id.
 */
export function refuseNameMatch(
  s: WorkflowServices,
  connector: Connector,
  where: { connector: string; accountId: string },
  record: AccountRecord,
  found: TargetAccount,
): void {
  const judged = judgeNameMatch(
    { connector: where.connector, accountId: where.accountId },
    record,
    found,
    (s.now ?? Date.now)(),
    connector.capabilities.visibilityWindowMs,
  );
  if (judged === 'lag') return;
  throw new ProvisioningError(judged.code, judged.message, {
    ...(judged.object === undefined ? {} : { object: judged.object }),
    ...(judged.details === undefined ? {} : { details: judged.details }),
  });
}
