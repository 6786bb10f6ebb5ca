import { isProvisioningError, type ProvisioningError } from '../../domain/errors';
import type { LeaseTerm } from '../../store/role-catalogue';
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
 * renewed as the job goes and, on a timer, while one call of it waits (a page read throttled
 * for minutes), released at its end. A job that finds another holding it fails with
 * IMPORT_ALREADY_RUNNING before it writes anything; roles are marked gone only together with
 * a renewal of the lease under its ETag (see {@link term}).
 */
export class ImportLeaseKeeper {
  private renewedAt = 0;
  private timer: ReturnType<typeof setInterval> | undefined;
  /** Why a renewal on the timer failed: the next `keep` throws it. */
  private lost: ProvisioningError | undefined;
  /** The renewal the timer has under way: a release waits for it, lest it take the lease again. */
  private renewing: Promise<void> | undefined;
  private released = false;

  constructor(
    private readonly s: WorkflowServices,
    private readonly connector: string,
    private readonly jobId: string,
    private readonly renewEveryMs = RENEW_AFTER_MS,
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
    if (this.timer === undefined) {
      this.timer = setInterval(() => {
        this.renewing ??= this.renewOnTimer().finally(() => {
          this.renewing = undefined;
        });
      }, this.renewEveryMs);
      this.timer.unref();
    }
  }

  /** Renews the lease once a while has passed; IMPORT_ALREADY_RUNNING when another job took it. */
  async keep(): Promise<void> {
    if (this.lost !== undefined) throw this.lost;
    if (this.now() - this.renewedAt < this.renewEveryMs) return;
    await this.take();
  }

  /** The lease as a write that marks roles gone renews it: from now, for the lease's length. */
  term(): LeaseTerm {
    return { nowMs: this.now(), ttlMs: IMPORT_LEASE_MS };
  }

  /** Releases the lease; a failure only leaves it to expire (the next import is told who held it). */
  async release(): Promise<void> {
    this.released = true;
    clearInterval(this.timer);
    await this.renewing;
    try {
      await this.s.catalogue.releaseImport(this.connector, this.jobId);
    } catch {
      this.s.logger.warn(
        `catalogue import of connector ${this.connector}: its lease was not released; it ends by itself`,
        { connector: this.connector, jobId: this.jobId },
      );
    }
  }

  private async renewOnTimer(): Promise<void> {
    if (this.lost !== undefined || this.released) return;
    try {
      await this.take();
    } catch (error) {
      // A storage hiccup is tried again on the next tick; a lease another job took is lost.
      if (isProvisioningError(error) && error.code === 'IMPORT_ALREADY_RUNNING') {
        this.lost = error;
        clearInterval(this.timer);
      }
    }
  }

  private now(): number {
    return this.s.now?.() ?? Date.now();
  }
}
