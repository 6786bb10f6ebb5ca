import type { TargetAccount } from './account';
import { isLinked, type AccountRecord, type AccountRecordUpdate } from './account-record';
import { mayStillBeReplicating } from './visibility';

/** The longest reason an operator may give for a link (kept in the account's record). */
export const LINK_REASON_MAX = 300;

/** What an operator asks: link the account ID to this object, why, who, when. */
export interface LinkAsk {
  targetId: string;
  reason: string;
  byName: string;
  /** ISO time, on the service's clock. */
  at: string;
}

/** What the target showed, read just before: the object holding the account ID, and the linked one. */
export interface LinkEvidence {
  /** The account the target finds by the account ID (undefined: none holds it). */
  holder: TargetAccount | undefined;
  /** The linked object as a read by its id shows it (undefined: not found). */
  linked: TargetAccount | undefined;
}

/**
 * An operator's link of an account ID to the object that holds it now, after a lookup refused
 * it with ACCOUNT_EXISTS (the linked object deleted outside, another holding the name): it
 * rests on what the target shows (DESIGN invariant 11), never on the operator's word alone:
 * - `link`: the record links another object, which a read by its id no longer finds (and the
 *   service did not create it within the visibility window, where "not found" may be lag), and
 *   the account ID is held by exactly the object the operator names;
 * - `already`: the record links that object already;
 * - `refused`: why not, naming what the target showed.
 *
 * @example
 * judgeOperatorLink('hr', 'ada', record, { holder, linked: undefined }, ask, Date.now(), 30_000);
 * // { link: { targetId: 'u2', linkedAt: ask.at, linkedBy: { byName: 'ada', ... fromTargetId: 'u1' } } }
 */
export function judgeOperatorLink(
  where: { connector: string; accountId: string },
  record: AccountRecord | undefined,
  seen: LinkEvidence,
  ask: LinkAsk,
  nowMs: number,
  windowMs: number,
): { link: NonNullable<AccountRecordUpdate['link']> } | { already: string } | { refused: string } {
  const account = `account "${where.accountId}" on connector "${where.connector}"`;
  if (!isLinked(record)) {
    return {
      refused:
        `${account}: the service's record links it to no object, so nothing is to be relinked: ` +
        'a request finds the account by its account ID',
    };
  }
  if (record.targetId === ask.targetId) {
    return { already: `${account} is linked to id ${ask.targetId} already` };
  }
  if (seen.linked !== undefined) {
    return {
      refused:
        `${account}: the object the record links (id ${record.targetId}) is still there, and ` +
        'requests act on it: nothing to relink',
    };
  }
  const createdAtMs = record.createdAt === undefined ? undefined : Date.parse(record.createdAt);
  if (mayStillBeReplicating(createdAtMs, nowMs, windowMs)) {
    return {
      refused:
        `${account}: the service created the linked object (id ${record.targetId}) at ` +
        `${record.createdAt}, within the target's visibility window (${Math.round(windowMs / 1000)} s): ` +
        'its "not found" may be a replica behind; try again once the window has passed',
    };
  }
  if (seen.holder === undefined) {
    return {
      refused: `${account}: no account on the target holds the account ID now: nothing to link`,
    };
  }
  if (seen.holder.id !== ask.targetId) {
    return {
      refused:
        `${account}: the account ID is held by id ${seen.holder.id} on the target, not by ` +
        `id ${ask.targetId}: the link names the object that holds it`,
    };
  }
  return {
    link: {
      targetId: ask.targetId,
      linkedAt: ask.at,
      linkedBy: {
        byName: ask.byName,
        reason: ask.reason,
        at: ask.at,
        fromTargetId: record.targetId,
      },
    },
  };
}
