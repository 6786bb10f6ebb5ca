import type { AccountRecord } from '../../domain/account-record';
import { isProvisioningError, type ProvisioningError } from '../../domain/errors';
import type { GroupRef } from '../../domain/group';
import type { ReconciliationReads } from '../../domain/reconciliation-reads';
import { TargetMirror } from '../../domain/target-mirror';
import type { TargetView, ViewAccount } from '../../domain/target-view';
import type {
  KeptMirror,
  ReconciliationCursors,
  ReconciliationProgress,
} from '../../store/reconciliation-state';
import type { WorkflowServices } from '../workflow-services';

/** What the bulk read of one run saw, and what to keep of it. */
export interface TargetRead {
  view: TargetView;
  /** `incremental`: both reads started from the last run's cursors. */
  mode: 'full' | 'incremental';
  /** The copy to write back and its new cursors; undefined when a read failed (nothing is kept). */
  keep?: { kept: KeptMirror; cursors: ReconciliationCursors };
  incomplete: string[];
  notices: string[];
  read: { groups: number; accounts: number };
}

interface ReadRun {
  connector: string;
  jobId: string;
  at: string;
}

/**
 * The bulk read of a run (issue 18): the managed groups' members, then the accounts, never one
 * account at a time. Where the connector tracks changes, from the copy and cursors the last
 * run kept (read whole when there are none, when one expired, or when a managed group is new
 * to it); else whole. A read that fails or is throttled past its wait leaves what it covers
 * unknown and the run incomplete, and nothing of this run's copy is kept.
 */
export async function readTarget(
  s: WorkflowServices,
  run: ReadRun,
  reads: ReconciliationReads,
  managed: readonly GroupRef[],
  records: readonly AccountRecord[],
): Promise<TargetRead> {
  const kept: KeptMirror = reads.incremental
    ? await s.reconciliation.load(run.connector)
    : { mirror: new TargetMirror(), storedChunks: new Map() };
  const { mirror } = kept;
  const managedIds = new Set(managed.map((group) => group.id));
  const notices: string[] = [];
  const incomplete: string[] = [];
  const unreadGroups = new Map<string, string>();
  const progress = new Progress(s, run.jobId);

  let membersCursor = kept.cursors?.members;
  const uncovered = managed.filter((group) => !mirror.members.has(group.id)).length;
  if (reads.incremental && kept.cursors === undefined) {
    notices.push(
      'first reconciliation of this connector: the target was read whole (the next run reads only its changes)',
    );
  } else if (membersCursor !== undefined && uncovered > 0) {
    notices.push(
      `${uncovered} managed groups are new to reconciliation: every member list was read whole`,
    );
    membersCursor = undefined;
  }
  const members = await readMembers(reads, mirror, managedIds, membersCursor, progress, notices);
  if ('failed' in members) {
    incomplete.push(`the managed groups' members could not be read: ${members.failed}`);
    for (const id of managedIds) unreadGroups.set(id, members.failed);
  } else {
    for (const [id, reason] of members.unread) unreadGroups.set(id, reason);
  }

  const linked = new Set(records.map((record) => record.targetId));
  const memberKeys = mirror.memberKeys();
  // A member held under any form the target names the account by (SCIM: userName or id).
  const keep = (account: ViewAccount) =>
    linked.has(account.id) ||
    memberKeys.has(account.key) ||
    (account.name !== undefined &&
      reads
        .memberKeys({ accountId: account.name, targetId: account.id })
        .some((key) => memberKeys.has(key)));
  const accounts = await readAccounts(
    reads,
    mirror,
    keep,
    kept.cursors?.accounts,
    progress,
    notices,
  );
  let accountsUnread: string | undefined;
  if ('failed' in accounts) {
    accountsUnread = accounts.failed;
    incomplete.push(`the accounts could not be read: ${accounts.failed}`);
  } else {
    mirror.prune(keep);
    if (reads.incremental) await topUp(reads, mirror, records, notices);
  }
  if (unreadGroups.size > 0 && !('failed' in members)) {
    incomplete.push(
      `${unreadGroups.size} managed groups could not be read: ${[...unreadGroups]
        .slice(0, 5)
        .map(([id, why]) => `${id} (${why})`)
        .join('; ')}${unreadGroups.size > 5 ? '; ...' : ''}`,
    );
  }
  const view = mirror.view(
    { members: reads.sources.members, accounts: reads.sources.accounts },
    { groups: unreadGroups, ...(accountsUnread === undefined ? {} : { accounts: accountsUnread }) },
  );
  const ok = !('failed' in members) && !('failed' in accounts);
  return {
    view,
    mode:
      !('failed' in members) &&
      members.incremental &&
      !('failed' in accounts) &&
      accounts.incremental
        ? 'incremental'
        : 'full',
    ...(ok && reads.incremental
      ? {
          keep: {
            kept,
            cursors: {
              ...(members.cursor === undefined ? {} : { members: members.cursor }),
              ...(accounts.cursor === undefined ? {} : { accounts: accounts.cursor }),
              jobId: run.jobId,
              savedAt: run.at,
            },
          },
        }
      : {}),
    incomplete,
    notices,
    read: { groups: progress.groupsRead, accounts: progress.accountsRead },
  };
}

type ReadOutcome<T> = ({ cursor?: string } & T) | { failed: string };

async function readMembers(
  reads: ReconciliationReads,
  mirror: TargetMirror,
  managedIds: ReadonlySet<string>,
  cursor: string | undefined,
  progress: Progress,
  notices: string[],
): Promise<ReadOutcome<{ unread: Map<string, string>; incremental: boolean }>> {
  const attempt = async (from: string | undefined) => {
    if (from === undefined) mirror.startWholeMembers();
    const unread = new Map<string, string>();
    const listed = new Set<string>();
    let next: string | undefined;
    for await (const page of reads.readMembers([...managedIds], from)) {
      for (const fact of page.facts) {
        mirror.applyMembers(fact, managedIds);
        if (!managedIds.has(fact.groupId)) continue;
        listed.add(fact.groupId);
        if (fact.kind === 'groupUnread') unread.set(fact.groupId, fact.reason);
        if (fact.kind === 'groupGone') {
          unread.set(
            fact.groupId,
            'gone from the target (the next catalogue import marks its role gone)',
          );
        }
      }
      next = page.cursor ?? next;
      await progress.groups(listed.size, 'reading members');
    }
    if (from === undefined) {
      for (const id of managedIds) {
        if (!listed.has(id))
          unread.set(id, 'not among the groups the target listed (deleted, or not readable)');
      }
    }
    return {
      unread,
      incremental: from !== undefined,
      ...(next === undefined ? {} : { cursor: next }),
    };
  };
  return withExpiry(attempt, cursor, notices);
}

async function readAccounts(
  reads: ReconciliationReads,
  mirror: TargetMirror,
  keep: (account: ViewAccount) => boolean,
  cursor: string | undefined,
  progress: Progress,
  notices: string[],
): Promise<ReadOutcome<{ incremental: boolean }>> {
  const attempt = async (from: string | undefined) => {
    if (from === undefined) mirror.startWholeAccounts();
    let next: string | undefined;
    let read = 0;
    for await (const page of reads.readAccounts(from)) {
      for (const fact of page.facts) mirror.applyAccount(fact, keep);
      read += page.facts.length;
      next = page.cursor ?? next;
      await progress.accounts(read);
    }
    return { incremental: from !== undefined, ...(next === undefined ? {} : { cursor: next }) };
  };
  return withExpiry(attempt, cursor, notices);
}

/** A read from a cursor the target no longer knows is done again whole, with a notice. */
async function withExpiry<T extends object>(
  attempt: (from: string | undefined) => Promise<{ cursor?: string } & T>,
  cursor: string | undefined,
  notices: string[],
): Promise<ReadOutcome<T>> {
  try {
    return await attempt(cursor);
  } catch (error) {
    if (isExpired(error) && cursor !== undefined) {
      notices.push(`${error.message}: read whole instead`);
      try {
        return await attempt(undefined);
      } catch (again) {
        return { failed: describe(again) };
      }
    }
    return { failed: describe(error) };
  }
}

/**
 * Linked accounts the copy does not hold (linked since a run that read only changes): read
 * one by one, in the second-read batches. Members not linked that the copy does not hold are
 * named by the second read of their finding instead.
 */
async function topUp(
  reads: ReconciliationReads,
  mirror: TargetMirror,
  records: readonly AccountRecord[],
  notices: string[],
): Promise<void> {
  const missing = new Map<string, string>();
  for (const record of records) {
    if (!mirror.accounts.has(record.targetId))
      missing.set(record.targetId, reads.memberKeys(record)[0] ?? record.targetId);
  }
  if (missing.size === 0) return;
  const items = [...missing].map(([targetId, key]) => ({
    targetId,
    key,
    groupIds: [],
    account: true,
  }));
  try {
    for (const recheck of await reads.recheck(items)) {
      if (recheck.exists !== true) continue;
      mirror.accounts.set(recheck.targetId, {
        id: recheck.targetId,
        key: missing.get(recheck.targetId) ?? recheck.targetId,
        ...(recheck.name === undefined ? {} : { name: recheck.name }),
        ...(recheck.enabled === undefined ? {} : { enabled: recheck.enabled }),
      });
      mirror.changedAccounts.add(recheck.targetId);
    }
  } catch (error) {
    // Not read: what they would have told stays unknown; the second reads ask again.
    notices.push(
      `${missing.size} accounts new to reconciliation could not be read: ${describe(error)}`,
    );
  }
}

function isExpired(error: unknown): error is ProvisioningError {
  return isProvisioningError(error) && error.code === 'CATALOGUE_CURSOR_EXPIRED';
}

function describe(error: unknown): string {
  if (isProvisioningError(error)) return `${error.code}: ${error.message}`;
  throw error;
}

/** The job's progress, written as the reads go (at most once a second). */
class Progress {
  groupsRead = 0;
  accountsRead = 0;
  private savedAt = 0;

  constructor(
    private readonly s: WorkflowServices,
    private readonly jobId: string,
  ) {}

  groups(read: number, phase: ReconciliationProgress['phase']): Promise<void> {
    this.groupsRead = read;
    return this.save(phase);
  }

  accounts(read: number): Promise<void> {
    this.accountsRead = read;
    return this.save('reading accounts');
  }

  private async save(phase: ReconciliationProgress['phase']): Promise<void> {
    if (Date.now() - this.savedAt < 1_000) return;
    this.savedAt = Date.now();
    await this.s.reconciliation.saveProgress(this.jobId, {
      phase,
      groupsRead: this.groupsRead,
      accountsRead: this.accountsRead,
      at: new Date().toISOString(),
    });
  }
}
