import type { CompatibilityReport } from '../../connectors/scim/compatibility-report';
import type { AccountRecord } from '../../domain/account-record';
import { ProvisioningError } from '../../domain/errors';
import type { GroupRef } from '../../domain/group';
import type { LeaseResult } from '../../store/account-leases';
import type { RequestIndexEntry } from '../../store/request-index';
import type { ImportPageCounts } from '../../store/role-catalogue';
import type { ActivityResult } from '../activity-result';
import { runActivity } from '../activity-result';
import type { ServicesProvider } from '../workflow-services';
import type {
  ImportCatalogueInput,
  LeaseInput,
  RecordStepInput,
  RunCompatibilityInput,
} from './activity-inputs';
import { connectorOf } from './connector-of';

export interface ImportSummary extends ImportPageCounts {
  groups: number;
  pages: number;
  markedGone: number;
}

/** How many imported groups are written to the catalogue at a time. */
const IMPORT_CHUNK = 500;

/** Activities on the service's own state: leases, the journal, the catalogue, jobs. */
export function serviceActivities(services: ServicesProvider) {
  return {
    async acquireAccountLease(input: LeaseInput): Promise<ActivityResult<LeaseResult>> {
      return runActivity('acquireAccountLease', services, (s) =>
        s.leases.acquire(input.connector, input.accountId, input.owner, input.nowMs, input.ttlMs),
      );
    },

    async releaseAccountLease(
      input: Omit<LeaseInput, 'nowMs' | 'ttlMs'> & { etag?: string },
    ): Promise<ActivityResult<null>> {
      return runActivity('releaseAccountLease', services, async (s) => {
        await s.leases.release(input.connector, input.accountId, input.owner, input.etag);
        return null;
      });
    },

    /**
     * A step's effective changes and what the service's record of the account learns,
     * written together: journal entries upsert by deterministic key, so a retried or
     * replayed step never duplicates one (DESIGN invariant 1).
     */
    async recordStep(input: RecordStepInput): Promise<ActivityResult<AccountRecord | null>> {
      return runActivity('recordStep', services, async (s) => {
        if (input.entries.length > 0) await s.journal.record(input.entries);
        // No change to the record: nothing to answer of it.
        if (input.record === undefined) return null;
        return s.links.update(input.connector, input.accountId, input.record, input.stored);
      });
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
     * "Import SCIM groups" / "Import Directory Groups": the catalogue read page by page and
     * written in chunks, then roles not seen are marked gone (never deleted). One activity:
     * a page cursor cannot be carried between activities for every target, and re-running
     * the whole import is idempotent.
     */
    async importCatalogue(input: ImportCatalogueInput): Promise<ActivityResult<ImportSummary>> {
      return runActivity('importCatalogue', services, async (s) => {
        const connector = connectorOf(s, input.connector);
        const options = {
          overwriteExisting: input.overwriteExisting,
          jobId: input.jobId,
          at: input.at,
        };
        const summary: ImportSummary = {
          groups: 0,
          pages: 0,
          added: 0,
          renamed: 0,
          renameSkipped: 0,
          unchanged: 0,
          returned: 0,
          markedGone: 0,
        };
        let chunk: GroupRef[] = [];
        const flush = async () => {
          if (chunk.length === 0) return;
          const counts = await s.catalogue.applyImportPage(input.connector, chunk, options);
          summary.added += counts.added;
          summary.renamed += counts.renamed;
          summary.renameSkipped += counts.renameSkipped;
          summary.unchanged += counts.unchanged;
          summary.returned += counts.returned;
          summary.pages += 1;
          chunk = [];
        };
        for await (const group of connector.importGroups()) {
          summary.groups += 1;
          chunk.push(group);
          if (chunk.length >= IMPORT_CHUNK) await flush();
        }
        await flush();
        summary.markedGone = await s.catalogue.markGone(input.connector, input.jobId, input.at);
        s.logger.info(
          `catalogue import of connector ${input.connector}: ${summary.groups} groups`,
          {
            connector: input.connector,
            jobId: input.jobId,
          },
        );
        return summary;
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
