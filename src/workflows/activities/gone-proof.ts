import type { Connector } from '../../connectors/connector';
import type { CatalogueRole } from '../../domain/catalogue-import';
import type { GroupRef } from '../../domain/group';

/**
 * What reads by id showed of the roles a full import's pages did not list, or a change feed
 * reported removed.
 */
export interface GoneProof {
  /** Groups the target still has: the pages missed them (they shifted while being read). */
  found: GroupRef[];
  /**
   * Roles whose group the target answered its own 404 for (its not-found error body; a bare
   * 404 from a proxy is a failed read): gone, on the target's own word.
   */
  gone: CatalogueRole[];
  /** Roles whose read failed: nothing is known, so nothing is concluded. */
  unread: { role: CatalogueRole; error: string }[];
}

/** Reads by id in flight at once (the connector's own limit applies as well). */
const READS_IN_FLIGHT = 8;

/**
 * Reads each role a full import did not see by its group's id (DESIGN invariant 11: not
 * listed is no proof of gone). A page that shifted because a group was deleted or added
 * while the target was read skips groups that exist; two imports at once see each other's
 * roles as unseen. Only the target's 404 makes a role gone; a failed read leaves it as it was.
 */
export async function proveGone(
  connector: Connector,
  unseen: readonly CatalogueRole[],
  onRead: () => Promise<void>,
): Promise<GoneProof> {
  const proof: GoneProof = { found: [], gone: [], unread: [] };
  const read = async (role: CatalogueRole): Promise<void> => {
    try {
      const group = await connector.readGroup(role.groupId);
      if (group === undefined) proof.gone.push(role);
      else proof.found.push(group);
    } catch (error) {
      proof.unread.push({ role, error: error instanceof Error ? error.message : String(error) });
    }
    await onRead();
  };
  for (let start = 0; start < unseen.length; start += READS_IN_FLIGHT) {
    await Promise.all(unseen.slice(start, start + READS_IN_FLIGHT).map(read));
  }
  return proof;
}

/**
 * Why roles were read by id: a full import's pages did not list them, or the target's
 * change feed reported them removed.
 */
export type ProofReason = 'not listed' | 'reported removed';

const FOUND_BECAUSE: Record<ProofReason, string> = {
  'not listed':
    "the pages did not list were read by id and are on the target (the target's paging shifted while it was read)",
  'reported removed':
    "the change feed reported removed were read by id and are on the target (a group that left the query's scope, or a replica's word)",
};

const UNREAD_BECAUSE: Record<ProofReason, string> = {
  'not listed': 'the pages did not list it',
  'reported removed': 'the change feed reported it removed',
};

/** The notices an import's result carries about what its reads by id showed. */
export function proofNotices(proof: GoneProof, reason: ProofReason): string[] {
  const notices: string[] = [];
  if (proof.found.length > 0) {
    notices.push(
      `${proof.found.length} group(s) ${FOUND_BECAUSE[reason]}: ${names(proof.found.map((g) => `"${g.displayName}" (${g.id})`))}`,
    );
  }
  for (const { role, error } of proof.unread.slice(0, NAMED)) {
    notices.push(
      `could not tell whether group "${role.targetName}" (${role.groupId}) is gone: ${UNREAD_BECAUSE[reason]} and its read by id failed (${error}); its role is left as it was`,
    );
  }
  if (proof.unread.length > NAMED) {
    notices.push(
      `${proof.unread.length - NAMED} more role(s) ${reason} could not be read by id either; they are left as they were`,
    );
  }
  return notices;
}

/** How many unread roles a result names one by one. */
const NAMED = 20;

function names(items: readonly string[]): string {
  const shown = items.slice(0, NAMED).join(', ');
  return items.length > NAMED ? `${shown} and ${items.length - NAMED} more` : shown;
}
