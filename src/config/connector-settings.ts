import { Cron } from 'croner';
import { z } from 'zod';
import { isLoopbackHost, normaliseScimBaseUrl, trimTrailingSlashes } from './base-url';

/** Key Vault secret names: 1-127 alphanumerics and dashes. Settings hold names, never values. */
const secretName = z
  .string()
  .regex(/^[0-9A-Za-z-]{1,127}$/, 'must be a secret name (letters, digits, dashes), not a value');

const connectorName = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'must be lowercase letters, digits and dashes');

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

/** Further simple attributes: target attribute name -> key of the profile's `attributes`. */
const mapping = z.record(z.string().min(1), z.string().min(1)).default({});

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

const transportSettings = {
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

const scimAuth = z.discriminatedUnion('type', [
  z.object({ type: z.literal('bearer'), tokenSecret: secretName }),
  z.object({ type: z.literal('basic'), username: z.string().min(1), passwordSecret: secretName }),
  z.object({ type: z.literal('none') }),
]);

export const scimConnectorSchema = z
  .object({
    name: connectorName,
    kind: z.literal('scim'),
    baseUrl: httpUrl.transform(normaliseScimBaseUrl),
    auth: scimAuth,
    advanced: z.object({ lastLogonAttribute: z.string().min(1).optional() }).default({}),
    mapping,
    /** Spec default: the account ID. `scimId` for servers that demand their own ids. */
    memberValue: z.enum(['accountId', 'scimId']).default('accountId'),
    /** `pathFilter`: `members[value eq "x"]`; `valueArray`: `path: members` with a value list. */
    memberRemoveStyle: z.enum(['pathFilter', 'valueArray']).default('pathFilter'),
    pageSize: z.int().min(1).max(1000).default(100),
    ...transportSettings,
  })
  .superRefine((settings, ctx) => {
    const url = new URL(settings.baseUrl);
    if (
      settings.auth.type !== 'none' &&
      url.protocol === 'http:' &&
      !isLoopbackHost(url.hostname)
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['baseUrl'],
        message: 'credentials are never sent over plain http except to loopback: use https',
      });
    }
  });

export const graphConnectorSchema = z
  .object({
    name: connectorName,
    kind: z.literal('graph'),
    tenantId: z.string().min(1),
    clientId: z.string().min(1),
    clientSecretName: secretName,
    upnDomain: z
      .string()
      .regex(/^[A-Za-z0-9.-]+\.[A-Za-z0-9-]+$/, 'must be a domain name')
      .optional(),
    authority: httpUrl.default('https://login.microsoftonline.com').transform(trimTrailingSlashes),
    graphEndpoint: httpUrl.default('https://graph.microsoft.com').transform(trimTrailingSlashes),
    scopes: z.array(z.string().min(1)).min(1).optional(),
    mapping,
    pageSize: z.int().min(1).max(999).default(999),
    ...transportSettings,
  })
  .superRefine((settings, ctx) => {
    for (const field of ['authority', 'graphEndpoint'] as const) {
      const url = new URL(settings[field]);
      if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
        ctx.addIssue({ code: 'custom', path: [field], message: 'must use https' });
      }
    }
  })
  .transform((settings) => ({
    ...settings,
    scopes: settings.scopes ?? [`${settings.graphEndpoint}/.default`],
  }));

export const connectorSettingsSchema = z.discriminatedUnion('kind', [
  scimConnectorSchema,
  graphConnectorSchema,
]);

export type ScimConnectorSettings = z.output<typeof scimConnectorSchema>;
export type GraphConnectorSettings = z.output<typeof graphConnectorSchema>;
export type ConnectorSettings = z.output<typeof connectorSettingsSchema>;
/** What an operator writes: defaults may be left out. */
export type ConnectorSettingsInput = z.input<typeof connectorSettingsSchema>;
