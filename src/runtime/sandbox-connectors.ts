import { randomBytes } from 'node:crypto';
import { scimConnectorSchema, type ConnectorSettings } from '../config/connector-settings';
import { startScimSandbox, type ScimSandbox } from '../sandbox/scim';

export interface SandboxConnectors {
  settings: ConnectorSettings[];
  /** Secret values for the local secret store: generated per run, never printed. */
  secrets: Record<string, string>;
  scim: ScimSandbox;
  describe(): string[];
  close(): Promise<void>;
}

const DEMO_GROUPS = ['Engineering', 'Sales', 'Finance', 'Human Resources', 'Support', 'Marketing'];

/**
 * With no connector configured, the local host and the CLI run against sandboxes
 * (DESIGN: the local host): a SCIM server on loopback that fits every compatibility point,
 * configured as connector "scim-sandbox".
 */
export async function startSandboxConnectors(): Promise<SandboxConnectors> {
  const token = randomBytes(24).toString('base64url');
  const scim = await startScimSandbox({
    auth: { type: 'bearer', token },
    quirks: { lastLogonAttribute: 'lastLogin' },
  });
  scim.seedGroups(DEMO_GROUPS.map((displayName) => ({ displayName })));
  scim.seedUsers([
    { userName: 'existing.user', displayName: 'Existing User', lastLogon: '2026-11-20T08:15:00Z' },
  ]);
  const settings = [
    scimConnectorSchema.parse({
      name: 'scim-sandbox',
      kind: 'scim',
      baseUrl: scim.baseUrl,
      auth: { type: 'bearer', tokenSecret: 'scim-sandbox-token' },
      advanced: { lastLogonAttribute: 'lastLogin' },
    }),
  ];
  return {
    settings,
    secrets: { 'scim-sandbox-token': token },
    scim,
    describe: () => [`scim-sandbox: SCIM 2.0 sandbox at ${scim.endpoint} (bearer auth)`],
    close: () => scim.close(),
  };
}
