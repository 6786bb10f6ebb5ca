import type { Connector } from '../../connectors/connector';
import type { AccountRecord } from '../../domain/account-record';
import { confirmDrift } from '../../domain/drift-confirmation';
import { evaluateDrift, firstReadOf } from '../../domain/drift-evaluation';
import {
  DRIFT_TYPES,
  driftKey,
  type DriftSubject,
  type DriftType,
} from '../../domain/drift-finding';
import { ProvisioningError } from '../../domain/errors';
import type { GroupRef } from '../../domain/group';
import type { ReconciliationReads } from '../../domain/reconciliation-reads';
import {
  emptyPass,
  type BulkPass,
  type DeferredAccount,
  type DriftTally,
  type PendingDrift,
  type ReconciliationPass,
  seeksDrift,
} from '../../domain/reconciliation-result';
import type { FindingChange, StoredFinding } from '../../store/drift-findings';
import type { WorkflowServices } from '../workflow-services';
import type { ReconcileInput, RecheckDeferredInput } from './activity-inputs';
import {
  accountOf,
  closedBy,
  closing,
  judgeDrift,
  secondReads,
  type JudgeRun,
} from './drift-judge';
import { readTarget } from './target-read';

/**
 * The bulk pass of a reconciliation job (issue 18): the managed groups and the linked
 * accounts read in bulk, compared with the service's records, every change to the report
 * confirmed by a second read (`judgeDrift`), accounts a request keeps busy deferred; last, the
 * copy of the target and its cursors kept for the next run. Running it again is harmless
 * (Durable runs activities at least once): findings keep their ids, those an earlier
 * attempt found are not judged again, events are sent again under the same ids, the cursors
 * are saved last, and the counts the job reports are read from the store (`tally`).
 */
export async function runReconciliation(
  s: WorkflowServices,
  connector: Connector,
  input: ReconcileInput,
): Promise<BulkPass & { tally: DriftTally }> {
  const reads = readsOf(connector);
  const run = judgeRunOf(s, input, reads);
  const { managed, known } = await managedGroups(s, input.connector);
  const records: AccountRecord[] = [];
  for await (const record of s.accounts.listLinked(input.connector)) records.push(record);
  const outside = assignedOutsideCatalogue(records, known);
  const open = await s.drift.open(input.connector);
  const read = await readTarget(
    s,
    { ...input, connector: input.connector },
    reads,
    managed,
    records,
  );
  if (managed.length === 0) {
    read.notices.push(
      `the role catalogue of connector "${input.connector}" has no group whose members the service writes: import it first; only the accounts were compared`,
    );
  }

  await s.reconciliation.saveProgress(input.jobId, {
    phase: 'confirming',
    groupsRead: read.read.groups,
    accountsRead: read.read.accounts,
    at: new Date().toISOString(),
  });
  const evaluation = evaluateDrift(read.view, {
    records,
    groups: managed,
    memberKeys: (account) => reads.memberKeys(account),
    accountKey: (accountId) => run.accountKey(accountId),
  });
  // An open finding stored under another spelling of the account is the same subject.
  const subjectKey = (subject: DriftSubject) =>
    driftKey(
      subject.accountId === undefined
        ? subject
        : { ...subject, accountId: run.accountKey(subject.accountId) },
    );
  const openByKey = new Map(open.map((finding) => [subjectKey(finding), finding]));
  const pending: PendingDrift[] = [];
  const kept: FindingChange[] = [];
  const candidates = new Set<string>();
  for (const subject of evaluation.candidates) {
    const key = subjectKey(subject);
    candidates.add(key);
    const existing = openByKey.get(key);
    // Found by an earlier attempt of this very pass (Durable runs activities at least once):
    // that attempt's two reads confirmed it; judged again, it would only be stored again.
    if (existing?.firstJobId === input.jobId) continue;
    // An open finding still shown is judged as a new one would be: a replica that lags can
    // show a drift already repaired, so only a second read (busy accounts deferred) confirms it.
    pending.push({
      subject,
      ...(existing === undefined ? {} : { findingId: existing.findingId }),
      firstRead: firstReadOf(subject, read.view),
    });
  }
  for (const finding of open) {
    if (candidates.has(subjectKey(finding))) continue;
    const closure = evaluation.closure(finding);
    if (closure === undefined) continue;
    if (closure.outOfScope) {
      kept.push(closing(run, finding, closure.because));
      continue;
    }
    pending.push({
      subject:
        closure.accountId === undefined ? finding : { ...finding, accountId: closure.accountId },
      findingId: finding.findingId,
      closure: closure.because,
      firstRead: `${read.view.sources.members}, ${read.view.sources.accounts}: ${closure.because}`,
    });
  }
  const closedNow: Partial<Record<DriftType, number>> = {};
  for (const finding of closedBy(run, await s.drift.save(kept))) {
    closedNow[finding.type] = (closedNow[finding.type] ?? 0) + 1;
  }
  const pass = await judgeDrift(s, run, pending, open);
  if (read.keep !== undefined) {
    await s.reconciliation.save(input.connector, read.keep.kept, read.keep.cursors);
  }
  return {
    ...pass,
    closed: merge(pass.closed, closedNow),
    mode: read.mode,
    read: read.read,
    tally: await s.drift.tally(input.connector, input.jobId),
    incomplete: [...read.incomplete, ...outside, ...pass.incomplete],
    notices: [...read.notices, ...pass.notices],
  };
}

/** Groups an "outside the catalogue" entry names at most (the count is exact). */
const OUTSIDE_LISTED = 20;

/**
 * What the job cannot judge because it never reads it: memberships the service assigned
 * (a grant of a group found on the target by name, the catalogue not knowing it) in groups
 * the role catalogue does not know at all. The run reads only the managed groups, so a
 * removal of such a membership outside would pass as "no drift": the run says instead that
 * it could not tell (DESIGN invariant 11), naming the groups, until an import brings them in.
 * Roles the catalogue knows but does not manage (gone, not writable) are its own business.
 */
function assignedOutsideCatalogue(
  records: readonly AccountRecord[],
  known: ReadonlySet<string>,
): string[] {
  const accounts = new Map<string, number>();
  for (const record of records) {
    for (const groupId of record.assignedGroups) {
      if (!known.has(groupId)) accounts.set(groupId, (accounts.get(groupId) ?? 0) + 1);
    }
  }
  if (accounts.size === 0) return [];
  const listed = [...accounts.keys()].sort().slice(0, OUTSIDE_LISTED);
  const assignments = [...accounts.values()].reduce((sum, count) => sum + count, 0);
  return [
    `${assignments} membership(s) the service assigned in ${accounts.size} group(s) the role ` +
      `catalogue does not know were not compared (${listed.join(', ')}` +
      `${accounts.size > listed.length ? ', ...' : ''}): import the catalogue to bring them in`,
  ];
}

/**
 * A pass over accounts a request kept busy, once their settle window has passed: each is read
 * again on its own (the first read of this pass), what still differs is judged like the bulk
 * pass's candidates, with its own second read; an open finding the bulk read still showed but
 * this read no longer does is judged for closing.
 */
export async function recheckDeferred(
  s: WorkflowServices,
  connector: Connector,
  input: RecheckDeferredInput,
): Promise<ReconciliationPass> {
  const reads = readsOf(connector);
  const run = judgeRunOf(s, input, reads);
  const pending = input.deferred.flatMap((deferred) => deferred.pending);
  const pass = emptyPass();
  const firstReads = await secondReads(s, run, pending, pass);
  const still: PendingDrift[] = [];
  for (const item of pending) {
    const record =
      item.subject.type === 'unlinkedMember'
        ? undefined
        : await s.accounts.get(input.connector, accountOf(item.subject));
    const recheck = firstReads.get(item.subject.targetId);
    const { verdict, subject } = confirmDrift(item.subject, record, recheck);
    const firstRead = `after requests settled, ${recheck?.evidence.join(', ') ?? ''}`;
    // A candidate or open finding still differing, or an open finding no longer shown: judged
    // with a second read.
    if (seeksDrift(item) ? verdict === 'confirmed' : verdict === 'refuted') {
      still.push({ ...item, subject, firstRead });
    } else if (item.findingId !== undefined && verdict === 'refuted') {
      // The bulk read showed it still open, this read no longer does (a request repaired it):
      // a second read showing the same closes it.
      still.push({
        ...item,
        closure: 'no longer shown once the requests on the account had settled',
        firstRead,
      });
    }
  }
  const judged = await judgeDrift(s, run, still, await findingsNamed(s, input.connector, still));
  return {
    ...judged,
    incomplete: [...pass.incomplete, ...judged.incomplete],
    tally: await s.drift.tally(input.connector, input.jobId),
  };
}

/**
 * The open findings the deferred items are about, read now: one may have been closed since
 * the bulk pass deferred it. Read one by one: a deferred pass holds the few subjects of busy
 * accounts, a connector may have many open findings.
 */
async function findingsNamed(
  s: WorkflowServices,
  connector: string,
  items: readonly PendingDrift[],
): Promise<StoredFinding[]> {
  const ids = new Set(items.flatMap((item) => item.findingId ?? []));
  const findings: StoredFinding[] = [];
  for (const id of ids) {
    const finding = await s.drift.get(connector, id);
    if (finding?.status === 'open') findings.push(finding);
  }
  return findings;
}

function readsOf(connector: Connector): ReconciliationReads {
  if (connector.reconciliation === undefined) {
    throw new ProvisioningError(
      'OPERATION_NOT_SUPPORTED',
      `connector "${connector.name}" (${connector.kind}) cannot be reconciled`,
      { object: connector.name },
    );
  }
  return connector.reconciliation;
}

function judgeRunOf(
  s: WorkflowServices,
  input: ReconcileInput,
  reads: ReconciliationReads,
): JudgeRun {
  const readStartMs = Date.parse(input.readAt);
  return {
    connector: input.connector,
    reads,
    accountKey: (accountId) => s.registry.accountKey(input.connector, accountId),
    jobId: input.jobId,
    at: input.at,
    readStartMs,
    settleMs: input.settleMs,
  };
}

/**
 * The managed groups (the catalogue's present roles whose members the service writes), and
 * the ids of every group the catalogue knows, gone or not writable too.
 */
async function managedGroups(
  s: WorkflowServices,
  connector: string,
): Promise<{ managed: GroupRef[]; known: Set<string> }> {
  const roles = await s.catalogue.list(connector, { includeGone: true });
  const managed = roles
    .filter((role) => role.status === 'present' && role.writable)
    .map((role) => ({ id: role.groupId, displayName: role.displayName, writable: true }));
  return { managed, known: new Set(roles.map((role) => role.groupId)) };
}

function merge(
  a: Partial<Record<DriftType, number>>,
  b: Partial<Record<DriftType, number>>,
): Partial<Record<DriftType, number>> {
  const merged: Partial<Record<DriftType, number>> = { ...a };
  for (const type of DRIFT_TYPES) {
    if (b[type] !== undefined) merged[type] = (merged[type] ?? 0) + b[type];
  }
  return merged;
}

export type { DeferredAccount };
