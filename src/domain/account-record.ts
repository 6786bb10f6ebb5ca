import type { TargetAccount } from './account';
import { lostWritesAfter, type LostEnabledWrite, type LostWrite } from './lost-writes';

/**
 * The service's own record of an account on a connector (DESIGN invariant 9): the link
 * between the account ID and the target's object id, and what the service last wrote. A
 * replica's read may lag; this record does not, so together they tell whether a change was
 * effective.
 */
export interface AccountRecord {
  connector: string;
  accountId: string;
  /** The target's own id of the account; '' once the service deleted it (see `deletedTargetIds`). */
  targetId: string;
  /** ISO time the link was made or last confirmed. */
  linkedAt: string;
  /** ISO time the service created the account: until the visibility window has passed, a "not found" is lag. */
  createdAt?: string;
  /** The enabled state the service last set (created enabled, locked, unlocked), and when. */
  enabled?: boolean;
  enabledAt?: string;
  /**
   * What a lock or unlock sent at `enabledAt` asked for (false: locked), when its answer was
   * lost and no read confirmed or refuted it: the enabled state is then not known (`enabled`
   * is absent), and only a read, or a later write's own answer, settles it.
   */
  enabledUnconfirmed?: boolean;
  /**
   * The lock or unlock behind `enabledUnconfirmed`, with the request that sent it and what
   * the state before showed: a later read that finds it applied journals it as that
   * request's change (lost-writes.ts).
   */
  lostEnabledWrite?: LostEnabledWrite;
  /**
   * When the service last wrote the account's attributes (an update): until the visibility
   * window has passed, a read showing them as an update asks may be a replica from before.
   */
  profileAt?: string;
  /** Direct groups the service has granted and not revoked since (`setMemberships` sets them). */
  assignedGroups: string[];
  /**
   * Direct groups whose membership is not known: a grant or revoke was sent whose answer was
   * lost, and no read confirmed or refuted it. Neither assigned nor not, until a later write's
   * own answer or read-back settles it.
   */
  unconfirmedGroups?: string[];
  /**
   * The grants and revokes among `unconfirmedGroups` whose answer was lost, with the request
   * that sent them and what the read before showed: a later read that finds one in place
   * journals it as that request's change (lost-writes.ts).
   */
  lostWrites?: LostWrite[];
  /**
   * The service's latest membership writes by group, kept for an hour: until the visibility
   * window has passed, a write of the service says more about a membership than a read.
   */
  groupWrites?: Record<string, { member: boolean; at: string }>;
  /**
   * Objects the service deleted for this account ID in the last hour: a lagging read may
   * still show one, and it must not be taken for the account (created again since). A delete
   * sent to the account's name, whose answer names no object, is remembered by that name.
   */
  deletedTargetIds?: { id: string; at: string }[];
  /**
   * An operator linked the account ID to this object (`POST .../accounts/{id}/link`, after a
   * lookup refused it with ACCOUNT_EXISTS): who, why, when, and the object linked before.
   * Dropped when a request links another object.
   */
  linkedBy?: OperatorLink;
}

/** An operator's link of an account ID to the object that holds it now. */
export interface OperatorLink {
  /** A signed-in caller's name, or which key, or the command line's user. */
  byName: string;
  reason: string;
  at: string;
  /** The object the record linked before (gone from the target). */
  fromTargetId: string;
}

/** How long the record keeps a membership write: far beyond any replication delay. */
const GROUP_WRITES_KEPT_MS = 60 * 60_000;

/** A change to the record, decided by a step and written with its journal entries. */
export interface AccountRecordUpdate {
  /** Link (or re-link) the account ID to this target id at `linkedAt`. */
  link?: { targetId: string; linkedAt: string; createdAt?: string; linkedBy?: OperatorLink };
  enabled?: { value: boolean; at: string };
  /** A lock or unlock was sent at `at` that nothing confirmed or refuted: the state is not known. */
  enabledUnconfirmed?: { value: boolean; at: string };
  /** The lock or unlock behind `enabledUnconfirmed`, for a later read to find. */
  lostEnabledWrite?: LostEnabledWrite;
  /** The service wrote the account's attributes at this time. */
  profileAt?: string;
  /** Groups granted (added to the assigned set) and revoked (removed from it), at `groupsAt`. */
  granted?: string[];
  revoked?: string[];
  /** Groups whose grant or revoke nothing confirmed or refuted: their membership is not known. */
  unconfirmedGroups?: string[];
  /** Writes among `unconfirmedGroups` whose answer was lost: what a later read may find. */
  lostWrites?: LostWrite[];
  /** Groups whose lost writes a read settled (found in place, or shown not applied). */
  settledLostWrites?: string[];
  groupsAt?: string;
  /** The service deleted the account (this object) at `at`: the link is dropped. */
  removed?: { targetId: string; at: string };
}

/**
 * The record after an update; undefined when the account is gone or was never linked.
 *
 * @example
 * applyRecordUpdate(undefined, 'hr', 'ada', { link: { targetId: 'u1', linkedAt: t } });
 * // { connector: 'hr', accountId: 'ada', targetId: 'u1', linkedAt: t, assignedGroups: [] }
 */
export function applyRecordUpdate(
  record: AccountRecord | undefined,
  connector: string,
  accountId: string,
  update: AccountRecordUpdate,
): AccountRecord | undefined {
  if (update.removed !== undefined) return tombstone(record, connector, accountId, update.removed);
  let next: AccountRecord | undefined = record?.targetId === '' ? undefined : record;
  if (update.link !== undefined) {
    const relinked = next !== undefined && next.targetId !== update.link.targetId;
    next = {
      ...(relinked || next === undefined ? { assignedGroups: [] } : next),
      ...(record?.deletedTargetIds === undefined
        ? {}
        : { deletedTargetIds: record.deletedTargetIds }),
      connector,
      accountId,
      targetId: update.link.targetId,
      linkedAt: update.link.linkedAt,
      ...(update.link.createdAt === undefined ? {} : { createdAt: update.link.createdAt }),
      ...(update.link.linkedBy === undefined ? {} : { linkedBy: update.link.linkedBy }),
    };
    if (relinked) {
      if (update.link.linkedBy === undefined) delete next.linkedBy;
      delete next.unconfirmedGroups;
      delete next.lostWrites;
      delete next.enabled;
      delete next.enabledAt;
      delete next.enabledUnconfirmed;
      delete next.lostEnabledWrite;
      delete next.profileAt;
      if (update.link.createdAt === undefined) delete next.createdAt;
    }
  }
  // Nothing to link: a deleted account's record stays as it is.
  if (next === undefined) return record?.targetId === '' ? record : undefined;
  const assigned = new Set(next.assignedGroups);
  for (const id of update.revoked ?? []) assigned.delete(id);
  for (const id of update.granted ?? []) assigned.add(id);
  // A grant or revoke answered, or read back, settles a group; one nothing settled unsettles it.
  const unknown = new Set(next.unconfirmedGroups ?? []);
  for (const id of [
    ...(update.granted ?? []),
    ...(update.revoked ?? []),
    ...(update.settledLostWrites ?? []),
  ]) {
    unknown.delete(id);
  }
  for (const id of update.unconfirmedGroups ?? []) {
    unknown.add(id);
    assigned.delete(id);
  }
  const settled = withEnabled(next, update);
  delete settled.unconfirmedGroups;
  delete settled.lostWrites;
  const lost = lostWritesAfter(next.lostWrites, update);
  return {
    ...settled,
    ...(unknown.size === 0 ? {} : { unconfirmedGroups: [...unknown].sort() }),
    ...(lost === undefined ? {} : { lostWrites: lost }),
    ...(update.profileAt === undefined ? {} : { profileAt: update.profileAt }),
    assignedGroups: [...assigned].sort(),
    ...groupWritesAfter(next.groupWrites, update),
  };
}

/** The record's enabled state after an update: set by a write's answer or a read, or not known. */
function withEnabled(record: AccountRecord, update: AccountRecordUpdate): AccountRecord {
  const next = { ...record };
  if (update.enabled !== undefined) {
    delete next.enabledUnconfirmed;
    delete next.lostEnabledWrite;
    return { ...next, enabled: update.enabled.value, enabledAt: update.enabled.at };
  }
  if (update.enabledUnconfirmed !== undefined) {
    delete next.enabled;
    delete next.lostEnabledWrite;
    return {
      ...next,
      enabledAt: update.enabledUnconfirmed.at,
      enabledUnconfirmed: update.enabledUnconfirmed.value,
      ...(update.lostEnabledWrite === undefined
        ? {}
        : { lostEnabledWrite: update.lostEnabledWrite }),
    };
  }
  return next;
}

/**
 * The record as stored (null: none) once `updates` are applied in order: what a commit
 * carrying several steps' updates leaves (null when nothing is linked or remembered).
 *
 * @example
 * recordAfterUpdates(null, 'hr', 'ada', [{ link: { targetId: 'u1', linkedAt: t } }, { granted: ['g1'], groupsAt: t }]);
 */
export function recordAfterUpdates(
  stored: AccountRecord | null,
  connector: string,
  accountId: string,
  updates: readonly AccountRecordUpdate[],
): AccountRecord | null {
  return updates.reduce<AccountRecord | null>(
    (record, update) =>
      applyRecordUpdate(record ?? undefined, connector, accountId, update) ?? null,
    stored,
  );
}

/** The record of an account the service deleted: no link, the deleted object remembered for an hour. */
function tombstone(
  record: AccountRecord | undefined,
  connector: string,
  accountId: string,
  removed: { targetId: string; at: string },
): AccountRecord {
  const keptFrom = Date.parse(removed.at) - GROUP_WRITES_KEPT_MS;
  return {
    connector,
    accountId,
    targetId: '',
    linkedAt: removed.at,
    assignedGroups: [],
    deletedTargetIds: [
      ...(record?.deletedTargetIds ?? []).filter(
        (deleted) => Date.parse(deleted.at) >= keptFrom && deleted.id !== removed.targetId,
      ),
      { id: removed.targetId, at: removed.at },
    ],
  };
}

/** Whether the record links the account ID to a target object (not only remembers deleted ones). */
export function isLinked(record: AccountRecord | null | undefined): record is AccountRecord {
  return record !== null && record !== undefined && record.targetId !== '';
}

/**
 * Whether a read that shows this object may be a lagging replica's view of one the service
 * deleted for the account ID, on a target whose reads may lag its writes (`visibilityWindowMs`
 * > 0). Where reads show writes at once (SCIM), an object a read shows is there.
 * - By object id: deleted within the last hour (far beyond any replication delay). After
 *   that, an object a read shows is there: restored from deleted items (Graph keeps a deleted
 *   user 30 days, same id) or created again under the id.
 * - By name: a delete sent to the account's name (Graph's `DELETE /users/{userPrincipalName}`,
 *   revision 5) learns no object id, and the record remembers the name. Any object showing
 *   that name, other than the one the record links now, may be the deleted one for the
 *   visibility window after the delete: as long as the service takes its own writes over a
 *   read anywhere else (a membership it wrote, an account it created). After that window a
 *   user a read shows under the name is there: someone made it again (another object id).
 *
 * @example
 * wasDeleted(record, { id: 'u1', accountId: 'ada@contoso.example' }, Date.now(), 30_000);
 */
export function wasDeleted(
  record: AccountRecord | null | undefined,
  shown: Pick<TargetAccount, 'id' | 'accountId'>,
  nowMs: number,
  visibilityWindowMs: number,
): boolean {
  if (visibilityWindowMs === 0) return false;
  const name = shown.accountId.toLowerCase();
  return (record?.deletedTargetIds ?? []).some((deleted) => {
    const sinceMs = nowMs - Date.parse(deleted.at);
    if (deleted.id === shown.id) return sinceMs < GROUP_WRITES_KEPT_MS;
    return (
      deleted.id.toLowerCase() === name &&
      record?.targetId !== shown.id &&
      sinceMs < visibilityWindowMs
    );
  });
}

function groupWritesAfter(
  writes: AccountRecord['groupWrites'],
  update: AccountRecordUpdate,
): Pick<AccountRecord, 'groupWrites'> {
  const at = update.groupsAt;
  if (at === undefined) return writes === undefined ? {} : { groupWrites: writes };
  const keptFrom = Date.parse(at) - GROUP_WRITES_KEPT_MS;
  const next: Record<string, { member: boolean; at: string }> = {};
  for (const [id, write] of Object.entries(writes ?? {})) {
    if (Date.parse(write.at) >= keptFrom) next[id] = write;
  }
  for (const id of update.revoked ?? []) next[id] = { member: false, at };
  for (const id of update.granted ?? []) next[id] = { member: true, at };
  return { groupWrites: next };
}

/**
 * Whether the service wrote this membership less than `windowMs` before `nowMs`, and what:
 * until then its write, not a read, tells the state (DESIGN invariant 9).
 */
export function recentGroupWrite(
  record: AccountRecord | null | undefined,
  groupId: string,
  nowMs: number,
  windowMs: number,
): boolean | undefined {
  const write = record?.groupWrites?.[groupId];
  if (write === undefined || nowMs - Date.parse(write.at) >= windowMs) return undefined;
  return write.member;
}

/** Whether an update changes nothing. */
export function isEmptyRecordUpdate(update: AccountRecordUpdate): boolean {
  return (
    update.link === undefined &&
    update.enabled === undefined &&
    update.enabledUnconfirmed === undefined &&
    update.profileAt === undefined &&
    (update.granted ?? []).length === 0 &&
    (update.revoked ?? []).length === 0 &&
    (update.unconfirmedGroups ?? []).length === 0 &&
    (update.lostWrites ?? []).length === 0 &&
    (update.settledLostWrites ?? []).length === 0 &&
    update.removed === undefined
  );
}
