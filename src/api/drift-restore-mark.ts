import type { DriftFinding } from '../domain/drift-finding';
import { isProvisioningError } from '../domain/errors';
import type { WorkflowServices } from '../workflows/workflow-services';

/** Whether a restore's findings carry its request, as read back; when not, why. */
export type RestoreMark = { marked: true } | { marked: false; notice: string };

/**
 * Marks the findings with the restore request that started for them. Each finding as stored
 * when it is marked: a reconciliation may have closed it or confirmed it again since it was
 * read, and keeps what it wrote. The request runs whether or not the mark is written, so a
 * mark that fails (other passes kept changing a finding: DRIFT_FINDING_CONTENDED, or storage
 * failing) is said as a notice beside the started request, never as the restore's failure.
 * "Marked" rests on the rows read back after the save (DESIGN invariant 11), never on the
 * save having thrown nothing: a finding removed or rewritten meanwhile is saved over by no one.
 */
export async function markRestored(
  services: WorkflowServices,
  findings: readonly DriftFinding[],
  restore: { requestId: string; at: string },
): Promise<RestoreMark> {
  const again =
    'send the same restore again to mark them (it joins this request, nothing starts twice)';
  try {
    await services.drift.save(
      findings.map((finding) => ({
        connector: finding.connector,
        findingId: finding.findingId,
        read: finding,
        judge: (stored) => (stored === undefined ? undefined : { ...stored, restore }),
      })),
    );
  } catch (error) {
    if (!isProvisioningError(error)) throw error;
    return {
      marked: false,
      notice:
        `request ${restore.requestId} was started and runs, but the findings could not be marked ` +
        `with it (${error.code}: ${error.message}): the drift report does not link them to it ` +
        `yet; ${again}`,
    };
  }
  const unmarked: string[] = [];
  for (const finding of findings) {
    const why = await notMarkedBecause(services, finding, restore.requestId);
    if (why !== undefined) unmarked.push(`"${finding.findingId}" (${why})`);
  }
  if (unmarked.length === 0) return { marked: true };
  return {
    marked: false,
    notice:
      `request ${restore.requestId} was started and runs, but read back after the mark, the ` +
      `drift report does not link ${unmarked.length === 1 ? 'finding' : 'findings'} ` +
      `${unmarked.join(', ')} to it; ${again}`,
  };
}

/** Why the stored finding, read back, does not name restore request `requestId`; undefined when it does. */
async function notMarkedBecause(
  services: WorkflowServices,
  finding: DriftFinding,
  requestId: string,
): Promise<string | undefined> {
  try {
    const stored = await services.drift.get(finding.connector, finding.findingId);
    if (stored === undefined) return 'no longer stored';
    if (stored.restore === undefined) return 'stored without a restore request';
    return stored.restore.requestId === requestId
      ? undefined
      : `stored with request ${stored.restore.requestId}`;
  } catch (error) {
    if (!isProvisioningError(error)) throw error;
    return `could not be read back: ${error.code}: ${error.message}`;
  }
}
