import { z } from 'zod';
import { isLoopbackHost, trimTrailingSlashes } from '../../config/base-url';
import {
  commonConnectorFields,
  httpUrl,
  mappingOf,
  secretName,
} from '../../config/connector-settings';
import { GRAPH_MANAGED_PROPERTIES } from './graph-user-payload';

/** Spec: Connection settings, connector B (directory), plus the operational settings. */
export const graphConnectorSchema = z
  .object({
    ...commonConnectorFields,
    kind: z.literal('graph'),
    tenantId: z.string().min(1),
    clientId: z.string().min(1),
    clientSecretName: secretName,
    /**
     * When the app registration's client secret expires (ISO date or time), for a secret
     * store that keeps no expiry or one that says later than Entra ID: the earlier counts.
     */
    clientSecretExpiresOn: z.union([z.iso.datetime({ offset: true }), z.iso.date()]).optional(),
    upnDomain: z
      .string()
      .regex(/^[A-Za-z0-9.-]+\.[A-Za-z0-9-]+$/, 'must be a domain name')
      .optional(),
    authority: httpUrl.default('https://login.microsoftonline.com').transform(trimTrailingSlashes),
    graphEndpoint: httpUrl.default('https://graph.microsoft.com').transform(trimTrailingSlashes),
    scopes: z.array(z.string().min(1)).min(1).optional(),
    mapping: mappingOf(GRAPH_MANAGED_PROPERTIES),
    pageSize: z.int().min(1).max(999).default(999),
    /**
     * Entra ID's limits for this app in this tenant, which the connector paces its calls to
     * (graph-behaviour.md): Microsoft documents 3,000 writes per 150 s and 3,500 resource
     * units per 10 s for tenants under 50 users (5,000 up to 500 users, 8,000 beyond), and
     * says they may change.
     */
    quota: z
      .object({
        writes: z.int().min(1).default(3000),
        writeSeconds: z.number().positive().default(150),
        resourceUnits: z.int().min(1).default(3500),
        resourceUnitSeconds: z.number().positive().default(10),
      })
      .prefault({}),
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

export type GraphConnectorSettings = z.output<typeof graphConnectorSchema>;
/** What an operator writes: defaults may be left out. */
export type GraphConnectorSettingsInput = z.input<typeof graphConnectorSchema>;
