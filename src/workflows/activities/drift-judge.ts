import type { AccountRecord } from '../../domain/account-record';
import { confirmDrift, type DriftVerdict } from '../../domain/drift-confirmation';
import { driftEventOf } from '../../domain/drift-event';
import {
  describeDrift,
  driftKey,
  type DriftFinding,
  type DriftSubject,
  type DriftType,
} from '../../domain/drift-finding';
import { isProvisioningError } from '../../domain/errors';
import type { ReconciliationReads } from '../../domain/reconciliation-reads';
import {
  emptyPass,
  type DeferredAccount,
  type PendingDrift,
  type ReconciliationPass,
} from '../../domain/reconciliation-result';
import type { AccountRecheck, RecheckItem } from '../../domain/target-view';
import type { Lease } from '../../store/account-row';
import { findingIdOf, type FindingChange, type StoredFinding } from '../../store/drift-findings';
import type { WorkflowServices } from '../workflow-services';
import { accountIdsNamed, busyAccounts, deferredForLease } from './busy-accounts';
import { logFound } from './found-findings';

/** What a pass judges with: the connector, its reads, and the run it belongs to. */
export interface JudgeRun {
  connector: string;
  reads: ReconciliationReads;
  jobId: string;
  /** ISO time the run started: findings first seen by it carry it. */
  at: string;
  /**
   * The connector's canonical form of an account ID (`Connector.accountKey`): findings of one
   * account under two spellings are judged, and checked for requests, as one account.
   */
  accountKey(accountId: string): string;
  /** When this pass's first read began (ms): requests ending after it minus the window are too recent. */
  readStartMs: number;
  settleMs: number;
}

/** Second reads go out in parts of this many accounts (Graph: 20 to a `$batch`). */
const RECHECK_PART = 200;

/**
 * The second half of every pass (issue 18: "never a false finding"): subjects of accounts a
 * request runs for, or ended for inside the settle window, are deferred; the others are read
 * again, account by account, and only what the second read shows too, with the service's
 * record unchanged and no request since, is stored: a new finding (with its event on the
 * queue), an open finding confirmed again, or the close of an open one. `open`: the
 * connector's open findings as the pass loaded them; a pending item whose finding is not
 * among them (closed since) is left alone. Each is written over the version loaded: one
 * another pass wrote since is judged again on its fresh copy (`judgedOpen`).
 */
export async function judgeDrift(
  s: WorkflowServices,
  run: JudgeRun,
  pending: readonly PendingDrift[],
  open: readonly StoredFinding[],
): Promise<ReconciliationPass> {
  const openFindings = new Map(open.map((finding) => [finding.findingId, finding]));
  const pass = emptyPass();
  const byAccount = groupByAccount(run, pending);
  const busy = await busyAccounts(
    s,
    run,
    [...byAccount.values()].map(({ account }) => account),
  );
  const ready: PendingDrift[] = [];
  for (const { account, items } of byAccount.values()) {
    const deferral = busy.get(account);
    if (deferral === undefined) ready.push(...items);
    else pass.deferred.push({ account, ...deferral, pending: items });
  }
  const rechecks = await secondReads(s, run, ready, pass);
  // A member the first read knew by id only is named by its second read.
  const named = ready.map((item) => withName(item, rechecks.get(item.subject.targetId)));
  const { records, leases } = await freshRecords(s, run, named);
  const accountsAfter = groupByAccount(run, named);
  const busyAfter = await busyAccounts(
    s,
    run,
    [...accountsAfter.values()].map(({ account }) => account),
  );
  // A request writing the account holds its lease, listed or not (its listing may have
  // failed): its record is written only at its step's commit, so what it wrote looks made
  // outside until then.
  for (const [account, lease] of leases) {
    const deferral = busyAfter.has(account) ? undefined : deferredForLease(s, run, lease);
    if (deferral !== undefined) busyAfter.set(account, deferral);
  }

  const found: DriftFinding[] = [];
  const changes: FindingChange[] = [];
  for (const item of named) {
    const { account } = accountsAfter.get(keyOf(run, item.subject))!;
    const deferral = busyAfter.get(account);
    if (deferral !== undefined) {
      pass.deferred.push({ account, ...deferral, pending: [item] });
      continue;
    }
    const recheck = rechecks.get(item.subject.targetId);
    const { verdict, subject } = confirmDrift(item.subject, records.get(account), recheck);
    const evidence = [item.firstRead, ...(recheck?.evidence ?? [])];
    if (item.findingId === undefined) {
      if (verdict === 'confirmed') found.push(newFinding(run, subject, evidence));
      else pass.unconfirmed.push(unconfirmed(item.subject, verdict, recheck, false));
      continue;
    }
    const open = openFindings.get(item.findingId);
    if (open?.status !== 'open') continue;
    if (item.closure === undefined) {
      // Shown again by the first read: confirmed again only when the second read shows it too.
      if (verdict === 'confirmed') {
        changes.push(judgedOpen(run, open, (fresh) => reconfirmed(run, fresh, subject, evidence)));
      } else pass.unconfirmed.push(unconfirmed(item.subject, verdict, recheck, true));
      continue;
    }
    if (verdict === 'refuted') {
      const why = `${item.closure ?? 'no longer shown'}; confirmed by a second read`;
      changes.push(closing(run, open, why));
    }
  }
  const stored = await s.drift.save([...found.map((finding) => created(run, finding)), ...changes]);
  // Stored first, then sent: a finding another pass created first (the store keeps one open
  // finding per subject) is that pass's to announce. A run retried after it stored findings
  // loads them open, and sends them again under the same ids.
  const news = foundBy(run, [...open, ...stored]);
  // Counted by the attempt that stored it (one loaded open was an earlier attempt's), at
  // once: an attempt that fails after storing (sending the events, saving the cursors) would
  // leave its findings to a retry that loads them open and counts none.
  for (const finding of news) {
    if (!openFindings.has(finding.findingId)) count(pass.found, finding.type);
  }
  logFound(s, run.connector, pass.found);
  if (news.length > 0) await s.driftEvents.send(news.map(driftEventOf));
  for (const finding of closedBy(run, stored)) count(pass.closed, finding.type);
  return pass;
}

/**
 * The change of an open finding a pass judged: made on the copy the pass read, and made
 * again on a fresh copy when another pass wrote the finding since, as long as it is still
 * open and no later run confirmed it (a newer observation is never overwritten by an older one).
 */
function judgedOpen(
  run: Pick<JudgeRun, 'at'>,
  read: StoredFinding,
  change: (open: DriftFinding) => DriftFinding,
): FindingChange {
  return {
    connector: read.connector,
    findingId: read.findingId,
    read,
    judge: (stored) =>
      stored?.status === 'open' && stored.lastConfirmed <= run.at ? change(stored) : undefined,
  };
}

/**
 * A finding the pass found: stored unless a finding of that id is stored already (a
 * retry's). Where another pass that overlapped this one found the same drift first, the
 * store answers that pass's open finding of the subject: this pass confirms it again, as
 * long as no later run confirmed it (a newer observation is never overwritten by an older one).
 */
function created(run: Pick<JudgeRun, 'at' | 'jobId'>, finding: DriftFinding): FindingChange {
  return {
    connector: finding.connector,
    findingId: finding.findingId,
    judge: (stored) => {
      if (stored === undefined) return finding;
      const another =
        stored.findingId !== finding.findingId &&
        stored.status === 'open' &&
        driftKey(stored) === driftKey(finding) &&
        stored.lastConfirmed <= run.at;
      return another ? reconfirmed(run, stored, finding, finding.evidence) : undefined;
    },
  };
}

/** The findings this run first saw, each once (the latest copy): the ones to announce. */
function foundBy(run: Pick<JudgeRun, 'jobId'>, findings: readonly DriftFinding[]): DriftFinding[] {
  const ours = new Map<string, DriftFinding>();
  for (const finding of findings) {
    if (finding.firstJobId === run.jobId) ours.set(finding.findingId, finding);
  }
  return [...ours.values()];
}

/** The findings of `stored` this run closed. */
export function closedBy(
  run: Pick<JudgeRun, 'jobId'>,
  stored: readonly DriftFinding[],
): DriftFinding[] {
  return stored.filter(
    (finding) => finding.status === 'closed' && finding.closedJobId === run.jobId,
  );
}

/**
 * The close of an open finding: confirmed by a second read, or without one when its account
 * or group left the scope.
 */
export function closing(
  run: Pick<JudgeRun, 'at' | 'jobId'>,
  open: StoredFinding,
  why: string,
): FindingChange {
  return judgedOpen(run, open, (fresh) => closed(run, fresh, why));
}

/** Marks the evidence lines of the latest run that confirmed an open finding again. */
const AGAIN = 'confirmed again by job ';

/**
 * An open finding both reads of this run showed: confirmed again. Its evidence keeps the
 * reads that found it and names the reads of this run in place of an earlier run's.
 */
function reconfirmed(
  run: Pick<JudgeRun, 'at' | 'jobId'>,
  open: DriftFinding,
  subject: DriftSubject,
  evidence: readonly string[],
): DriftFinding {
  return {
    ...open,
    ...(subject.observedEnabled === undefined ? {} : { observedEnabled: subject.observedEnabled }),
    ...(subject.groupName === undefined ? {} : { groupName: subject.groupName }),
    lastConfirmed: run.at,
    lastJobId: run.jobId,
    evidence: [
      ...open.evidence.filter((line) => !line.startsWith(AGAIN)),
      ...evidence.map((line) => `${AGAIN}${run.jobId}: ${line}`),
    ],
  };
}

/**
 * Why a subject the second read did not confirm is not stored: a candidate is not found, an
 * open finding is not confirmed again (and stays open as it was).
 */
function unconfirmed(
  subject: DriftSubject,
  verdict: Exclude<DriftVerdict, 'confirmed'>,
  recheck: AccountRecheck | undefined,
  openFinding: boolean,
): ReconciliationPass['unconfirmed'][number] {
  const why =
    verdict === 'refuted'
      ? `the second read does not show it (a read that lagged, or ${openFinding ? 'repaired' : 'undone'} since)`
      : `the second read could not tell: ${recheck?.unread ?? 'no answer'}`;
  return {
    finding: describeDrift(subject),
    why: openFinding ? `open finding not confirmed again: ${why}` : why,
  };
}

function withName(item: PendingDrift, recheck: AccountRecheck | undefined): PendingDrift {
  if (item.subject.type !== 'unlinkedMember' || item.subject.memberName !== undefined) return item;
  if (recheck?.name === undefined) return item;
  return { ...item, subject: { ...item.subject, memberName: recheck.name } };
}

function newFinding(run: JudgeRun, subject: DriftSubject, evidence: string[]): DriftFinding {
  return {
    ...subject,
    findingId: findingIdOf(run.at, driftKey(subject)),
    connector: run.connector,
    status: 'open',
    firstSeen: run.at,
    lastConfirmed: run.at,
    firstJobId: run.jobId,
    lastJobId: run.jobId,
    evidence,
  };
}

function closed(
  run: Pick<JudgeRun, 'at' | 'jobId'>,
  open: DriftFinding,
  why: string,
): DriftFinding {
  return {
    ...open,
    status: 'closed',
    closedAt: run.at,
    closedJobId: run.jobId,
    closedBecause: why,
  };
}

/** The account a subject is judged by: the linked account's ID, or an unlinked member's name. */
export function accountOf(subject: DriftSubject): string {
  return subject.accountId ?? subject.memberName ?? subject.targetId;
}

/** The canonical key of a subject's account (`accountKey`): one per account, however spelled. */
function keyOf(run: Pick<JudgeRun, 'accountKey'>, subject: DriftSubject): string {
  return run.accountKey(accountOf(subject));
}

/**
 * The items by account key, each account named by the spelling its first item gives it: two
 * spellings of one account are one account to check for requests and to defer.
 */
function groupByAccount(
  run: Pick<JudgeRun, 'accountKey'>,
  pending: readonly PendingDrift[],
): Map<string, { account: string; items: PendingDrift[] }> {
  const byAccount = new Map<string, { account: string; items: PendingDrift[] }>();
  for (const item of pending) {
    const key = keyOf(run, item.subject);
    const group = byAccount.get(key) ?? { account: accountOf(item.subject), items: [] };
    group.items.push(item);
    byAccount.set(key, group);
  }
  return byAccount;
}

/**
 * The second read of every subject's account, by target id. A part whose read fails leaves
 * its subjects unknown (and the run incomplete), never "drifted".
 */
export async function secondReads(
  s: WorkflowServices,
  run: Pick<JudgeRun, 'reads'>,
  pending: readonly PendingDrift[],
  pass: Pick<ReconciliationPass, 'incomplete'>,
): Promise<Map<string, AccountRecheck>> {
  const items = new Map<string, RecheckItem>();
  for (const { subject } of pending) {
    const item = items.get(subject.targetId) ?? {
      targetId: subject.targetId,
      key: run.reads.memberValue({
        accountId: accountOf(subject),
        targetId: subject.targetId,
      }),
      ...nameOf(run.reads, subject),
      groupIds: [],
      account: false,
    };
    if (subject.groupId !== undefined && !item.groupIds.includes(subject.groupId)) {
      item.groupIds.push(subject.groupId);
    }
    if (
      subject.type === 'accountDeletedOutside' ||
      subject.type === 'accountStateChangedOutside' ||
      (subject.type === 'unlinkedMember' && subject.memberName === undefined)
    ) {
      item.account = true;
    }
    items.set(subject.targetId, item);
  }
  const all = [...items.values()];
  const rechecks = new Map<string, AccountRecheck>();
  for (let start = 0; start < all.length; start += RECHECK_PART) {
    try {
      for (const recheck of await run.reads.recheck(all.slice(start, start + RECHECK_PART))) {
        rechecks.set(recheck.targetId, recheck);
      }
    } catch (error) {
      if (!isProvisioningError(error)) throw error;
      pass.incomplete.push(
        `second reads of ${all.length - start} accounts failed: ${error.code}: ${error.message}`,
      );
      s.logger.warn(`reconciliation: second reads failed: ${error.code}`);
      break;
    }
  }
  return rechecks;
}

/**
 * The subject's name on the target, where known: an unlinked member's, or the name a linked
 * account's ID gives it (a SCIM group may hold the account under it rather than its id).
 */
function nameOf(reads: Pick<ReconciliationReads, 'accountName'>, subject: DriftSubject) {
  const name =
    subject.memberName ??
    (subject.accountId === undefined ? undefined : reads.accountName(subject.accountId));
  return name === undefined ? {} : { name };
}

/**
 * The service's record of each subject's account, read after the second read: a change since
 * the first read makes the subject unknown. For an unlinked member, the record of an account
 * ID the member's name could be linked under (the name, or its bare form where the connector
 * completes one). With each, the lease its row holds (any of them, for an unlinked member).
 */
async function freshRecords(
  s: WorkflowServices,
  run: Pick<JudgeRun, 'connector' | 'reads'>,
  pending: readonly PendingDrift[],
): Promise<{
  records: Map<string, AccountRecord | undefined>;
  leases: Map<string, Lease>;
}> {
  const records = new Map<string, AccountRecord | undefined>();
  const leases = new Map<string, Lease>();
  for (const { subject } of pending) {
    const account = accountOf(subject);
    if (records.has(account)) continue;
    if (subject.type !== 'unlinkedMember') {
      const { record, lease } = await s.accounts.read(run.connector, account);
      records.set(account, record);
      if (lease !== undefined) leases.set(account, lease);
      continue;
    }
    let linked: AccountRecord | undefined;
    for (const accountId of accountIdsNamed(run.reads, account)) {
      const { record, lease } = await s.accounts.read(run.connector, accountId);
      if (record !== undefined && record.targetId !== '') linked = record;
      // The lease that lasts longest of the name's rows: an old one must not hide a live one.
      const held = leases.get(account);
      if (lease !== undefined && (held === undefined || lease.expiresAtMs > held.expiresAtMs)) {
        leases.set(account, lease);
      }
    }
    records.set(account, linked);
  }
  return { records, leases };
}

function count(counts: Partial<Record<DriftType, number>>, type: DriftType): void {
  counts[type] = (counts[type] ?? 0) + 1;
}

export type { DeferredAccount };
