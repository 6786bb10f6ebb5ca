import { Cron } from 'croner';
import { z } from 'zod';

/**
 * What every connector's settings hold, whatever its kind; each kind's schema (next to its
 * adapter, e.g. src/connectors/scim/scim-settings.ts) adds its own fields to these.
 */

/** Key Vault secret names: 1-127 alphanumerics and dashes. Settings hold names, never values. */
export const secretName = z
  .string()
  .regex(/^[0-9A-Za-z-]{1,127}$/, 'must be a secret name (letters, digits, dashes), not a value');

export const connectorName = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'must be lowercase letters, digits and dashes');

export const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

/** Further simple attributes: target attribute name -> key of the profile's `attributes`. */
export const mapping = z.record(z.string().min(1), z.string().min(1)).default({});

/**
 * NCRONTAB with seconds, as Azure Functions timer triggers read it:
 * "{second} {minute} {hour} {day} {month} {day-of-week}".
 */
const importSchedule = z
  .string()
  .refine(isSixFieldCron, 'must be a six-field NCRONTAB expression, e.g. "0 0 2 * * *"');

function isSixFieldCron(expression: string): boolean {
  if (expression.trim().split(/\s+/).length !== 6) return false;
  try {
    new Cron(expression, { paused: true });
    return true;
  } catch {
    return false;
  }
}

/** The fields every kind shares: its name, the schedule of its import, its transport. */
export const commonConnectorFields = {
  name: connectorName,
  /** Catalogue import on a timer ("Import SCIM groups" / "Import Directory Groups"). */
  importSchedule: importSchedule.optional(),
  /** The import's "Overwrite existing roles" option when it runs on the schedule. */
  importOverwriteExisting: z.boolean().default(false),
  concurrency: z.int().min(1).max(64).default(8),
  timeoutMs: z.int().min(100).max(300_000).default(30_000),
  maxRetries: z.int().min(0).max(10).default(4),
  /**
   * How long one call may wait in all while the target throttles (429, Retry-After) before
   * the step fails with TARGET_THROTTLED saying how long it waited.
   */
  maxThrottleWaitSeconds: z.int().min(1).max(3600).default(120),
};

/** A connector's validated settings as the service at large sees them: its kind adds more. */
export type ConnectorSettings = z.output<z.ZodObject<typeof commonConnectorFields>> & {
  kind: string;
};

/** The schema that validates (and fills the defaults of) one kind's connector settings. */
export type ConnectorSettingsSchema = z.ZodType<ConnectorSettings>;

/** The settings schema of each connector kind the process knows, by kind. */
export type ConnectorSettingsKinds = ReadonlyMap<string, ConnectorSettingsSchema>;
