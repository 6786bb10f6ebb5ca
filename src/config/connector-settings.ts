import { Cron } from 'croner';
import { z } from 'zod';
import { QUARANTINE_DEFAULTS } from '../domain/quarantine';
import { THROTTLE_HOLD_DEFAULT_MINUTES } from '../domain/throttle-hold';

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

/**
 * An http(s) base address the service appends its paths to. Refused (naming the part, never
 * the value, which may hold a credential): a user name or password in it (credentials belong
 * in the secret store), a query (`?tenant=...`, `?code=...`) and a fragment, which the
 * service's own paths would drop: its calls would go to another endpoint (another tenant)
 * than the one written, without a word.
 */
export const httpUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
  .superRefine((value, ctx) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return; // z.url() names it
    }
    if (url.username !== '' || url.password !== '') {
      ctx.addIssue({
        code: 'custom',
        message:
          'must not hold a user name or password: credentials go in the secret store (auth settings name them)',
      });
    }
    if (url.search !== '' || value.includes('?')) {
      ctx.addIssue({
        code: 'custom',
        message:
          'must not hold a query (?...): the service appends its own paths, so a query would be dropped and the calls would go elsewhere',
      });
    }
    if (url.hash !== '' || value.includes('#')) {
      ctx.addIssue({ code: 'custom', message: 'must not hold a fragment (#...)' });
    }
  });

/** What a kind's connector sets on every account itself, which its Mapping may not overwrite. */
export interface ManagedAttributes {
  /** Attribute names, compared without regard to case (SCIM, RFC 7643 §2.1; Graph alike). */
  names: readonly string[];
  /** The schema URN that may prefix a name (`urn:...:core:2.0:User:userName`), if any. */
  schemaPrefix?: string;
  /** Why they are the connector's, for the message (e.g. "userName is the account ID"). */
  reason: string;
}

/**
 * Further simple attributes: target attribute name -> key of the profile's `attributes`.
 * A name the connector sets itself (or a sub-attribute of one: `emails.value`,
 * `emails[type eq "work"].value`) is refused at start-up (DESIGN invariant 6), so the
 * Mapping can never overwrite the account ID, its state, its password or its e-mail.
 *
 * @example
 * mappingOf({ names: ['userName'], reason: 'userName is the account ID' }).parse({ title: 'jobTitle' });
 */
export function mappingOf(managed: ManagedAttributes) {
  const names = new Set(managed.names.map((name) => name.toLowerCase()));
  const prefix = managed.schemaPrefix?.toLowerCase();
  return z
    .record(z.string().min(1), z.string().min(1))
    .superRefine((entries, ctx) => {
      for (const attribute of Object.keys(entries)) {
        if (!names.has(attributeHead(attribute, prefix))) continue;
        ctx.addIssue({
          code: 'custom',
          path: [attribute],
          message: `the connector sets this attribute itself and the Mapping may not overwrite it (${managed.reason})`,
        });
      }
    })
    .default({});
}

/** `urn:...:User:emails[type eq "work"].value` -> `emails`. */
function attributeHead(attribute: string, prefix: string | undefined): string {
  let name = attribute.trim().toLowerCase();
  if (prefix !== undefined && name.startsWith(`${prefix}:`)) name = name.slice(prefix.length + 1);
  return name.split(/[.[]/, 1)[0] ?? name;
}

/**
 * NCRONTAB with seconds, as Azure Functions timer triggers read it:
 * "{second} {minute} {hour} {day} {month} {day-of-week}".
 */
const schedule = z
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

/**
 * When a connector's target fails every request, the connector is quarantined: its requests
 * are held (not failed) while a probe checks the target, at growing intervals (issue 14).
 * Every field has a default; `{}` is the defaults.
 */
const quarantine = z
  .strictObject({
    enabled: z.boolean().default(QUARANTINE_DEFAULTS.enabled),
    /** 5xx answers or connection failures in a row (each after the transport's retries)... */
    failureThreshold: z.int().min(1).max(1000).default(QUARANTINE_DEFAULTS.failureThreshold),
    /** ...each within this many seconds of the previous one. */
    failureWindowSeconds: z
      .int()
      .min(1)
      .max(3600)
      .default(QUARANTINE_DEFAULTS.failureWindowSeconds),
    firstProbeSeconds: z.int().min(1).max(3600).default(QUARANTINE_DEFAULTS.firstProbeSeconds),
    maxProbeSeconds: z.int().min(1).max(86_400).default(QUARANTINE_DEFAULTS.maxProbeSeconds),
    /** A request held longer fails with CONNECTOR_QUARANTINED. */
    maxHoldHours: z.number().min(0.1).max(720).default(QUARANTINE_DEFAULTS.maxHoldHours),
  })
  .refine((q) => q.maxProbeSeconds >= q.firstProbeSeconds, {
    message: 'maxProbeSeconds must be at least firstProbeSeconds',
    path: ['maxProbeSeconds'],
  })
  .prefault({});

/** The fields every kind shares: its name, the schedule of its import, its transport, its quarantine. */
export const commonConnectorFields = {
  name: connectorName,
  /** Catalogue import on a timer ("Import SCIM groups" / "Import Directory Groups"). */
  importSchedule: schedule.optional(),
  /** The import's "Overwrite existing roles" option when it runs on the schedule. */
  importOverwriteExisting: z.boolean().default(false),
  /** Reconciliation on a timer ("Reconcile SCIM accounts" / "Reconcile Directory accounts"). */
  reconcileSchedule: schedule.optional(),
  /**
   * Seconds after a request's end before reconciliation judges its account: reads may not
   * show its writes sooner (Graph replicas lag). Longer than the target's replication delay.
   */
  reconcileSettleSeconds: z.int().min(0).max(3600).default(120),
  concurrency: z.int().min(1).max(64).default(8),
  timeoutMs: z.int().min(100).max(300_000).default(30_000),
  maxRetries: z.int().min(0).max(10).default(4),
  /**
   * How long one call may wait in place in all while the target throttles (429, Retry-After)
   * before it gives up: its request then waits on a durable timer (maxThrottleHoldMinutes).
   */
  maxThrottleWaitSeconds: z.int().min(1).max(3600).default(120),
  /**
   * How long a request may wait in all for the target's throttling: past a call's
   * `maxThrottleWaitSeconds`, the request waits on durable timers for what the target's
   * Retry-After asks and runs the step again; past this, the step fails with TARGET_THROTTLED.
   * 0: never held, the step fails at once.
   */
  maxThrottleHoldMinutes: z.number().min(0).max(1440).default(THROTTLE_HOLD_DEFAULT_MINUTES),
  quarantine,
};

/** A connector's validated settings as the service at large sees them: its kind adds more. */
export type ConnectorSettings = z.output<z.ZodObject<typeof commonConnectorFields>> & {
  kind: string;
};

/** The schema that validates (and fills the defaults of) one kind's connector settings. */
export type ConnectorSettingsSchema = z.ZodType<ConnectorSettings>;

/** How configuration validates one kind's connectors. */
export interface ConnectorKindSettings {
  /** Each connector's settings on their own. */
  schema: ConnectorSettingsSchema;
  /**
   * Problems among several connectors of the kind, valid one by one, that cannot run
   * together (settings that must agree): each message names the connectors and the setting.
   */
  conflicts: (connectors: readonly ConnectorSettings[]) => string[];
}

/** How each connector kind the process knows validates its settings, by kind. */
export type ConnectorSettingsKinds = ReadonlyMap<string, ConnectorKindSettings>;
