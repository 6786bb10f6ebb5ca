import type { CompatibilityResult } from '../domain/compatibility-result';

/**
 * The last compatibility run of each connector: what the status check shows, and what a
 * failed request's error is read against ("setPassword is not supported by this server:
 * compatibility run of <date>, point 5"). A new run replaces the one before.
 */
export interface CompatibilityRunStore {
  /** The connector's last run as it was kept (with whatever else its kind reported), or undefined. */
  last(connector: string): Promise<CompatibilityResult | undefined>;
  /** Keeps the run as its connector's last, replacing the one before. */
  keep(result: CompatibilityResult): Promise<void>;
}
