import type { CompatibilityReport } from '../../connectors/scim/compatibility-report';
import type { AccountRecord } from '../../domain/account-record';
import { ProvisioningError } from '../../domain/errors';
import type { CommittedStep, LeaseResult } from '../../store/account-state';
import type { RequestIndexEntry } from '../../store/request-index';
import type { ActivityResult } from '../activity-result';
import { runActivity } from '../activity-result';
import type { ServicesProvider } from '../workflow-services';
import type {
  ImportCatalogueInput,
  LeaseInput,
  RecordStepInput,
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
      return runActivity('acquireAccountLease', services, (s) =>
        s.accounts.acquire(
          input.connector,
          input.accountId,
          input.owner,
          input.nowMs,
          input.ttlMs,
          input.likelyNew === true,
        ),
      );
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
     * replayed step never duplicates one (DESIGN invariant 1).
     */
    async recordStep(input: RecordStepInput): Promise<ActivityResult<CommittedStep>> {
      return runActivity('recordStep', services, (s) => s.accounts.commitStep(input));
    },

    /**
     * The request list learns how a request ended. Keyed by the request alone, so a retried
     * activity writes the same entry again; a replay does not run it at all.
     */
    async indexRequestEnd(input: RequestIndexEntry): Promise<ActivityResult<null>> {
      return runActivity('indexRequestEnd', services, async (s) => {
        await s.requests.recordEnd(input);
        return null;
      });
    },

    /**
     * "Import SCIM groups" / "Import Directory Groups", full or incremental. One activity:
     * a page cursor cannot be carried between activities for every target, and re-running
     * the whole import is idempotent.
     */
    async importCatalogue(input: ImportCatalogueInput): Promise<ActivityResult<ImportSummary>> {
      return runActivity('importCatalogue', services, (s) =>
        runCatalogueImport(s, connectorOf(s, input.connector), input),
      );
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
