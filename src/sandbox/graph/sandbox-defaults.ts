import type { GraphSandboxClient } from './graph-sandbox-types.js';

/** The tenant of a sandbox started without `tenantId`. */
export const DEFAULT_SANDBOX_TENANT_ID = '7f3e2a10-5c4b-4d8e-9a61-2b0c9d8e7f65';

/**
 * The client of a sandbox started without `clients`: every permission of the spec's
 * table (spec: Authentication, connector B) plus Directory.Read.All.
 */
export const DEFAULT_SANDBOX_CLIENT: Readonly<GraphSandboxClient> = Object.freeze({
  clientId: '3b9d6c2e-8a41-4f07-b5d3-6e1f0a9c2d48',
  secret: 'sandbox-client-secret-not-for-production',
  roles: [
    'User.Read.All',
    'User.ReadWrite.All',
    'GroupMember.Read.All',
    'Directory.Read.All',
    'GroupMember.ReadWrite.All',
    'AuditLog.Read.All',
  ],
});

export const DEFAULT_VERIFIED_DOMAINS: readonly string[] = ['contoso.example'];
