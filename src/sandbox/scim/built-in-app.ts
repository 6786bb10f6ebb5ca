import type { ScimQuirks } from './types.js';

/** Where an application's built-in SCIM service keeps its endpoints (scim-interop.md). */
export const BUILT_IN_APP_PREFIX = '/api/auth/scim/v2';

/**
 * An application's built-in SCIM service, written for inbound provisioning from Entra or
 * Okta (scim-interop.md, "Applications' built-in SCIM services"): members only as its own
 * user ids, no `co`, no password by PATCH (one on create is silently ignored), pages of at
 * most 100, no last-logon attribute, and its own HTML pages outside the SCIM endpoints.
 * Serve it under {@link BUILT_IN_APP_PREFIX}.
 *
 * @example
 * const app = await startScimSandbox({ prefix: BUILT_IN_APP_PREFIX, quirks: BUILT_IN_APP_QUIRKS });
 */
export const BUILT_IN_APP_QUIRKS: Readonly<ScimQuirks> = {
  memberValuesMustBeInternalIds: true,
  filterOperators: ['eq'],
  passwordNotPatchable: true,
  maxCount: 100,
  outsidePrefix: 'html404',
};
