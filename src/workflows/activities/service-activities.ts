import type { CompatibilityReport } from '../../connectors/scim/compatibility-report';
import { userGroupsVerdictOf } from '../../connectors/scim/compatibility-user-groups';
import type { AccountRecord } from '../../domain/account-record';
import { compatibilityJournalEntries } from '../../domain/compatibility-journal';
import { isProvisioningError, ProvisioningError } from '../../domain/errors';
import type { LeaseResult } from '../../store/account-state';
import type { ImportState } from '../../store/connector-states';
import type { ActivityResult } from '../activity-result';
import { runActivity } from '../activity-result';
import type { ServicesProvider, WorkflowServices } from '../workflow-services';
import type {
  ImportCatalogueInput,
  LeaseInput,
  RecordedStep,
  RecordStepActivityInput,
  RequestEnd,
  RunCompatibilityInput,
} from './activity-inputs';
import { runCatalogueImport, type ImportSummary } from './catalogue-import-run';
import { connectorOf } from './connector-of';

export type { ImportSummary };

/** Activities on the service's own state: leases, the journal, the catalogue, jobs. */
export function serviceActivities(services: ServicesProvider) {
  return {
    /** Takes the account's lease and reads its record with it (one call for a new account). */
    async acquireAccountLease(input: LeaseInput): Promise<ActivityResult<LeaseResult>> {
      return runActivity('acquireAccountLease', services, (s) => acquireLease(s, input));
    },

    async releaseAccountLease(
      input: Omit<LeaseInput, 'nowMs' | 'ttlMs'> & { etag?: string; stored?: AccountRecord | null },
    ): Promise<ActivityResult<null>> {
      return runActivity('releaseAccountLease', services, async (s) => {
        await s.accounts.release(
          input.connector,
          input.accountId,
          input.owner,
          input.etag === undefined || input.stored === undefined
            ? undefined
            : { etag: input.etag, stored: input.stored },
        );
        return null;
      });
    },

    /**
     * A step's effective changes and what the service's record of the account learns, in one
     * write with the lease: journal entries upsert by deterministic key, so a retried or
     * replayed step never duplicates one (DESIGN invariant 1). With `end` (the last step's
     * commit, releasing the lease), the request's end is then indexed and counted here
     * instead of by indexRequestEnd: `indexed` says so. A failure to index it fails nothing
     * (the commit is written): nothing is counted, and the orchestration ends the request
     * through indexRequestEnd as before.
     */
    async recordStep(input: RecordStepActivityInput): Promise<ActivityResult<RecordedStep>> {
      return runActivity('recordStep', services, async (s) => {
        const { end, ...commit } = input;
        const committed = await s.accounts.commitStep(commit);
        if (end === undefined) return committed;
        const { measures, ...entry } = end;
        let endedHere: boolean;
        try {
          endedHere = await s.requests.recordEnd(entry);
        } catch (error) {
          s.logger.warn(
            `request ${entry.requestId}: its end was not indexed with its last step (${isProvisioningError(error) ? error.code : 'unexpected failure'}); it is indexed on its own`,
            { connector: entry.connector, requestId: entry.requestId },
          );
          return committed;
        }
        // Counted after every write that can fail, and only by the run that ended the entry:
        // a run again of this activity (its answer lost, a host killed) counts nothing twice.
        if (measures !== undefined && endedHere) s.metrics.requestEnded(entry.connector, measures);
        return { ...committed, indexed: true };
      });
    },

    /**
     * The request list learns how a request ended, unless the last step's commit wrote it.
     * Keyed by the request alone, so a retried activity writes the same entry again; a replay
     * does not run it at all. The metrics count the request and its steps once the write
     * succeeded, and only when this run ended the entry (a run again finds it ended, and
     * counts nothing twice); when no attempt could
     * write it, the orchestration counts the request through countRequestEnd.
     */
    async indexRequestEnd(input: RequestEnd): Promise<ActivityResult<null>> {
      return runActivity('indexRequestEnd', services, async (s) => {
        const { measures, ...entry } = input;
        const endedHere = await s.requests.recordEnd(entry);
        if (measures !== undefined && endedHere) s.metrics.requestEnded(entry.connector, measures);
        return null;
      });
    },

    /**
     * The metrics count a request whose end could not be indexed (indexRequestEnd failed on
     * every attempt): it ended all the same. Nothing here can fail once the services are
     * built, so the count happens once.
     */
    async countRequestEnd(input: RequestEnd): Promise<ActivityResult<null>> {
      return runActivity('countRequestEnd', services, async (s) => {
        if (input.measures !== undefined) s.metrics.requestEnded(input.connector, input.measures);
        return null;
      });
    },

    /**
     * "Import SCIM groups" / "Import Directory Groups", full or incremental. One activity:
     * a page cursor cannot be carried between activities for every target, and re-running
     * the whole import is idempotent.
     */
    async importCatalogue(input: ImportCatalogueInput): Promise<ActivityResult<ImportSummary>> {
      return runActivity('importCatalogue', services, async (s) => {
        try {
          const summary = await runCatalogueImport(s, connectorOf(s, input.connector), input);
          await keepImportState(s, input, {
            ok: true,
            mode: summary.mode,
            groups: summary.groups,
          });
          return summary;
        } catch (error) {
          if (isProvisioningError(error)) {
            await keepImportState(s, input, {
              ok: false,
              error: { code: error.code, message: error.message },
            });
          }
          throw error;
        }
      });
    },

    /**
     * The compatibility run of a connector whose kind has one; it cleans up after itself. Its
     * result is kept as the connector's last run (replacing the one before), which the
     * status check shows and failed requests are read against.
     */
    async runCompatibility(
      input: RunCompatibilityInput,
    ): Promise<ActivityResult<CompatibilityReport>> {
      return runActivity('runCompatibility', services, async (s) => {
        const settings = s.registry.settings(input.connector);
        const kind = s.registry.kindOf(input.connector);
        if (settings === undefined || kind?.compatibilityRun === undefined) {
          throw new ProvisioningError(
            'OPERATION_NOT_SUPPORTED',
            `connector "${input.connector}" has no compatibility run: it is for SCIM servers`,
            { object: input.connector },
          );
        }
        const report = await kind.compatibilityRun(settings, s.secrets, {
          logger: s.logger,
          ...(input.jobId === undefined ? {} : { jobId: input.jobId }),
          ...(input.groupName === undefined ? {} : { groupName: input.groupName }),
        });
        // Journaled first: a failure to keep the result is retried, and the retry is a new run.
        await journalRunChanges(s, report);
        // What it saw of the user's groups reaches the connector in every worker, before the
        // result is kept: a kept result whose finding the connector never learned would mislead.
        const verdict = userGroupsVerdictOf(report);
        if (verdict !== undefined) {
          await s.connectorStates.recordUserGroups(input.connector, verdict);
        }
        await s.compatibility.keep(report);
        s.logger.info(`compatibility run of connector ${input.connector}: ${report.verdict}`, {
          connector: input.connector,
          ...(input.jobId === undefined ? {} : { jobId: input.jobId }),
        });
        return report;
      });
    },
  };
}

/**
 * Journals the changes the run made on the target. Not retried as a whole when that fails:
 * a second run would make changes of its own; the error names them.
 */
async function journalRunChanges(s: WorkflowServices, report: CompatibilityReport): Promise<void> {
  const entries = compatibilityJournalEntries(report);
  if (entries.length === 0) return;
  try {
    await s.journal.record(entries);
  } catch (error) {
    if (!isProvisioningError(error)) throw error;
    throw new ProvisioningError(
      error.code,
      `the compatibility run of connector "${report.connector}" made ${entries.length} change(s) ` +
        `on the target (${describeChanges(report)}), but journaling them failed: ${error.message}`,
      { retryable: false, object: report.connector, cause: error },
    );
  }
}

/** The run's changes in a line, for an error that must name them: "account created (compat-test-...), ...". */
function describeChanges(report: CompatibilityReport): string {
  return (report.changes ?? [])
    .map(
      (made) =>
        `${made.change}${made.groupName === undefined ? '' : ` ${made.groupName}`} (${made.accountId})`,
    )
    .join(', ');
}

/**
 * The health report learns how the connector's last import ended. A failure to keep it
 * fails nothing: the import's own result stands, and the operator log says why.
 */
async function keepImportState(
  s: WorkflowServices,
  input: ImportCatalogueInput,
  outcome: Omit<ImportState, 'at' | 'jobId'>,
): Promise<void> {
  try {
    await s.connectorStates.recordImport(input.connector, {
      at: new Date().toISOString(),
      jobId: input.jobId,
      ...outcome,
    });
  } catch (error) {
    s.logger.warn(
      `connector ${input.connector}: the import's end was not kept for the health report (${isProvisioningError(error) ? error.code : 'unexpected failure'})`,
      { connector: input.connector, jobId: input.jobId },
    );
  }
}

/**
 * Takes (or renews) the account's lease and reads its record with it: the lease activity's
 * work, and the connector gate's on a request's first look (one activity for both).
 */
export function acquireLease(services: WorkflowServices, input: LeaseInput): Promise<LeaseResult> {
  return services.accounts.acquire(
    input.connector,
    input.accountId,
    input.owner,
    input.nowMs,
    input.ttlMs,
    input.likelyNew === true,
  );
}
