import { superseded } from '../../store/table-import-lease';
import type { WorkflowServices } from '../workflow-services';

/**
 * How long a catalogue import's lease lasts unless renewed: long enough for a throttled page
 * read between renewals, short enough that a job whose worker died blocks the next import
 * briefly (the API takes over at once the lease of a job Durable reports ended).
 */
export const IMPORT_LEASE_MS = 10 * 60_000;
/** How often a running import renews its lease. */
const RENEW_AFTER_MS = 60_000;

/**
 * The lease a catalogue import job holds on its connector while it runs (one import per
 * connector at a time): taken at the start (the API usually took it already for this job),
 * renewed as the job goes, released at its end. A job that finds another holding it fails
 * with IMPORT_ALREADY_RUNNING before it writes anything.
 */
export class ImportLeaseKeeper {
  private renewedAt = 0;

  constructor(
    private readonly s: WorkflowServices,
    private readonly connector: string,
    private readonly jobId: string,
  ) {}

  /** Takes the lease for the job; IMPORT_ALREADY_RUNNING when another live job holds it. */
  async take(): Promise<void> {
    const nowMs = this.now();
    const answer = await this.s.catalogue.claimImport(this.connector, {
      jobId: this.jobId,
      nowMs,
      ttlMs: IMPORT_LEASE_MS,
    });
    if (!answer.held) throw superseded(this.connector, this.jobId, answer.holder);
    this.renewedAt = nowMs;
  }

  /** Renews the lease once a while has passed; IMPORT_ALREADY_RUNNING when another job took it. */
  async keep(): Promise<void> {
    if (this.now() - this.renewedAt < RENEW_AFTER_MS) return;
    await this.take();
  }

  /** Releases the lease; a failure only leaves it to expire (the next import is told who held it). */
  async release(): Promise<void> {
    try {
      await this.s.catalogue.releaseImport(this.connector, this.jobId);
    } catch {
      this.s.logger.warn(
        `catalogue import of connector ${this.connector}: its lease was not released; it ends by itself`,
        { connector: this.connector, jobId: this.jobId },
      );
    }
  }

  private now(): number {
    return this.s.now?.() ?? Date.now();
  }
}
