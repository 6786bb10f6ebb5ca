import type { ReconciliationReads } from '../../domain/reconciliation-reads';
import type { Lease } from '../../store/account-row';
import type { WorkflowServices } from '../workflow-services';

/** Requests looked at per account: the newest ones tell whether one runs or just ended. */
const LOOKED_AT = 20;
/** Accounts asked about at once. */
const PARALLEL = 16;

/**
 * The accounts a request runs for, or ended for inside the settle window of this read
 * (issue 18: "checked again after it instead of reported"), from the request list's index:
 * reads may not show such a request's writes yet (Graph replicas lag), and its step may not
 * have written the service's record yet. Each comes with the time to look again and why.
 */
export async function busyAccounts(
  s: WorkflowServices,
  run: {
    connector: string;
    reads: Pick<ReconciliationReads, 'accountName'>;
    readStartMs: number;
    settleMs: number;
  },
  accounts: readonly string[],
): Promise<Map<string, { notBeforeMs: number; why: string }>> {
  const busy = new Map<string, { notBeforeMs: number; why: string }>();
  const since = run.readStartMs - run.settleMs;
  for (let start = 0; start < accounts.length; start += PARALLEL) {
    await Promise.all(
      accounts.slice(start, start + PARALLEL).map(async (account) => {
        for (const accountId of accountIdsNamed(run.reads, account)) {
          const page = await s.requests.query({
            connector: run.connector,
            accountId,
            limit: LOOKED_AT,
          });
          for (const entry of page.entries) {
            if (entry.status === 'pending' || entry.status === 'running') {
              busy.set(account, {
                notBeforeMs: run.readStartMs + run.settleMs,
                why: `request ${entry.requestId} is still running`,
              });
              return;
            }
            const ended = Date.parse(entry.finishedAt ?? entry.receivedAt);
            if (ended > since) {
              busy.set(account, {
                notBeforeMs: ended + run.settleMs,
                why: `request ${entry.requestId} ended at ${entry.finishedAt ?? entry.receivedAt}, inside the settle window of ${Math.round(run.settleMs / 1000)} s`,
              });
              return;
            }
          }
        }
      }),
    );
  }
  return busy;
}

/**
 * Busy by its lease: a held, unexpired lease on the account's row is a request (or a restore)
 * writing it, whether or not the request list shows it (its listing at submission may have
 * failed, or the worker stopped between starting it and listing it). Undefined when the lease
 * has ended. Judged on the clock leases are taken on.
 */
export function deferredForLease(
  s: Pick<WorkflowServices, 'now'>,
  run: { readStartMs: number; settleMs: number },
  lease: Lease,
): { notBeforeMs: number; why: string } | undefined {
  const nowMs = s.now?.() ?? Date.now();
  if (lease.expiresAtMs <= nowMs) return undefined;
  return {
    notBeforeMs: Math.max(run.readStartMs + run.settleMs, nowMs),
    why: `${lease.owner} holds the account's lease until ${lease.expiresAt}: it is writing the account`,
  };
}

/** The account IDs that name an account `name` on the target: itself, and a bare form the connector completes to it. */
export function accountIdsNamed(
  reads: Pick<ReconciliationReads, 'accountName'>,
  name: string,
): string[] {
  const at = name.lastIndexOf('@');
  const bare = at > 0 ? name.slice(0, at) : undefined;
  return bare !== undefined && reads.accountName(bare) === name ? [name, bare] : [name];
}
