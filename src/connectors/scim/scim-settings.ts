import { z } from 'zod';
import { isLoopbackHost, normaliseScimBaseUrl } from '../../config/base-url';
import {
  commonConnectorFields,
  httpUrl,
  mappingOf,
  secretName,
} from '../../config/connector-settings';
import { NOT_FOUND_ANSWERS } from './not-found-answer';
import { SCIM_MANAGED_ATTRIBUTES } from './user-mapping';

const scimAuth = z.discriminatedUnion('type', [
  z.object({ type: z.literal('bearer'), tokenSecret: secretName }),
  z.object({ type: z.literal('basic'), username: z.string().min(1), passwordSecret: secretName }),
  z.object({ type: z.literal('none') }),
]);

/** Spec: Connection settings, connector A (SCIM), plus the operational settings. */
export const scimConnectorSchema = z
  .object({
    ...commonConnectorFields,
    kind: z.literal('scim'),
    baseUrl: httpUrl.transform(normaliseScimBaseUrl),
    auth: scimAuth,
    advanced: z.object({ lastLogonAttribute: z.string().min(1).optional() }).default({}),
    mapping: mappingOf(SCIM_MANAGED_ATTRIBUTES),
    /** Spec default: the account ID. `scimId` for servers that demand their own ids. */
    memberValue: z.enum(['accountId', 'scimId']).default('accountId'),
    /** `pathFilter`: `members[value eq "x"]`; `valueArray`: `path: members` with a value list. */
    memberRemoveStyle: z.enum(['pathFilter', 'valueArray']).default('pathFilter'),
    /**
     * `pathFilter`: an e-mail change replaces only the primary address
     * (`emails[primary eq true].value`); `wholeList`: replaces the whole `emails` list, for
     * servers that take no filter in a PATCH path (their other addresses are removed).
     */
    emailUpdateStyle: z.enum(['pathFilter', 'wholeList']).default('pathFilter'),
    /**
     * What the server answers for an object it does not have, besides a SCIM error (RFC 7644
     * §3.12): `scim11Error` or `empty` (a 404 without a body), as the compatibility run finds.
     */
    notFoundAnswer: z.enum(NOT_FOUND_ANSWERS).default('scimError'),
    pageSize: z.int().min(1).max(1000).default(100),
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

export type ScimConnectorSettings = z.output<typeof scimConnectorSchema>;
/** What an operator writes: defaults may be left out. */
export type ScimConnectorSettingsInput = z.input<typeof scimConnectorSchema>;
