import { loadConfig } from '../../src/config/app-config';
import type { StatusFinding } from '../../src/connectors/connector';
import { connectorSettingsKinds } from '../../src/connectors/connector-kinds';
import { ConnectorRegistry } from '../../src/connectors/connector-registry';
import { graphConnectorSchema } from '../../src/connectors/graph/graph-settings';
import { LocalSecretStore } from '../../src/secrets/local-secret-store';
import { startGraphSandbox, type GraphSandbox } from '../../src/sandbox/graph';

type Outcome = StatusFinding['outcome'];
type Evidence = StatusFinding['evidence'];
/** A finding as the table states it: outcome, and the evidence it rests on. */
export type Expected = `${Outcome} (${NonNullable<Evidence> | 'nothing'})`;

/** The tasks of the spec's permission table, as the report names them. */
export const FEATURES = [
  'Read accounts',
  'Create, change, lock, delete accounts',
  'Read groups and group structure',
  "Read an account's groups",
  'Write memberships',
  'Last logon',
] as const;

export interface PermissionSet {
  /** Also the connector's name: `perm-<name>`. */
  name: string;
  roles: string[];
  /** false: the tenant has no Entra ID P1/P2 licence while this set is checked. */
  licensed?: boolean;
  /** With the probe reads: per feature, in FEATURES order. */
  probed: Expected[];
  /** From the token's roles claim alone (no probe). */
  claimed: Expected[];
}

const FULL = ['User.ReadWrite.All', 'GroupMember.ReadWrite.All', 'AuditLog.Read.All'];

/**
 * The permission sets customers grant (issue 12), and what the report must say for each:
 * `granted` only on a probe's proof; writes are never probed.
 */
export const PERMISSION_SETS: PermissionSet[] = [
  {
    name: 'none',
    roles: [],
    probed: [
      'missing (probe)',
      'missing (token)',
      'missing (probe)',
      'missing (probe)',
      'missing (token)',
      'missing (probe)',
    ],
    claimed: Array<Expected>(6).fill('missing (token)'),
  },
  {
    name: 'user-read',
    roles: ['User.Read.All'],
    probed: [
      'granted (probe)',
      'missing (token)',
      'missing (probe)',
      'missing (probe)',
      'missing (token)',
      'missing (probe)',
    ],
    claimed: [
      'not verified (token)',
      'missing (token)',
      'missing (token)',
      'missing (token)',
      'missing (token)',
      'missing (token)',
    ],
  },
  {
    name: 'users-and-members',
    roles: ['User.ReadWrite.All', 'GroupMember.ReadWrite.All'],
    probed: [
      'granted (probe)',
      'not verified (token)',
      'granted (probe)',
      'granted (probe)',
      'not verified (token)',
      'missing (probe)',
    ],
    claimed: [
      'not verified (token)',
      'not verified (token)',
      'not verified (token)',
      'not verified (token)',
      'not verified (token)',
      'missing (token)',
    ],
  },
  {
    name: 'with-audit-log',
    roles: FULL,
    probed: [
      'granted (probe)',
      'not verified (token)',
      'granted (probe)',
      'granted (probe)',
      'not verified (token)',
      'granted (probe)',
    ],
    claimed: Array<Expected>(6).fill('not verified (token)'),
  },
  {
    name: 'directory-read',
    roles: ['Directory.Read.All'],
    probed: [
      'granted (probe)',
      'missing (token)',
      'granted (probe)',
      'granted (probe)',
      'missing (token)',
      'missing (probe)',
    ],
    claimed: [
      'not verified (token)',
      'missing (token)',
      'not verified (token)',
      'not verified (token)',
      'missing (token)',
      'missing (token)',
    ],
  },
  {
    name: 'directory-readwrite',
    roles: ['Directory.ReadWrite.All'],
    probed: [
      'granted (probe)',
      'not verified (token)',
      'granted (probe)',
      'granted (probe)',
      'not verified (token)',
      'missing (probe)',
    ],
    claimed: [
      'not verified (token)',
      'not verified (token)',
      'not verified (token)',
      'not verified (token)',
      'not verified (token)',
      'missing (token)',
    ],
  },
  {
    name: 'unlicensed-tenant',
    roles: FULL,
    licensed: false,
    probed: [
      'granted (probe)',
      'not verified (token)',
      'granted (probe)',
      'granted (probe)',
      'not verified (token)',
      'not verified (nothing)',
    ],
    claimed: Array<Expected>(6).fill('not verified (token)'),
  },
];

/** The report's findings on the features, as the table states them. */
export function featureOutcomes(findings: readonly StatusFinding[]): string[] {
  return FEATURES.map((feature) => {
    const finding = findings.find((candidate) => candidate.name === feature);
    return finding === undefined
      ? 'absent'
      : `${finding.outcome} (${finding.evidence ?? 'nothing'})`;
  });
}

export const connectorName = (set: PermissionSet): string => `perm-${set.name}`;
const clientId = (set: PermissionSet): string => `app-${set.name}`;

/** A Graph sandbox with one app registration per permission set, and a connector on each. */
export interface PermissionTarget {
  sandbox: GraphSandbox;
  registry: ConnectorRegistry;
  clientId(set: PermissionSet): string;
  /** Runs `check` with the tenant licensed as the set says, then licensed again. */
  withLicence<T>(set: PermissionSet, check: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * The target the permission table is checked against, over real HTTPS with the real MSAL
 * flow. Its first account is a member of a group, so the memberOf probe has a group to show.
 */
export async function startPermissionTarget(): Promise<PermissionTarget> {
  const sandbox = await startGraphSandbox({
    clients: PERMISSION_SETS.map((set) => ({
      clientId: clientId(set),
      secret: `secret-${set.name}`,
      roles: set.roles,
    })),
  });
  const member = sandbox.addUser({ userPrincipalName: 'first.member@contoso.example' });
  sandbox.addMember(sandbox.addGroup({ displayName: 'Probe Group' }).id, member.id);
  const connectors = PERMISSION_SETS.map((set) =>
    graphConnectorSchema.parse({
      name: connectorName(set),
      kind: 'graph',
      tenantId: sandbox.tenantId,
      clientId: clientId(set),
      clientSecretName: `secret-${set.name}`,
      authority: sandbox.authority,
      graphEndpoint: sandbox.graphEndpoint,
      upnDomain: 'contoso.example',
    }),
  );
  const secrets = new LocalSecretStore(
    Object.fromEntries(PERMISSION_SETS.map((set) => [`secret-${set.name}`, `secret-${set.name}`])),
  );
  const registry = new ConnectorRegistry(
    { ...loadConfig({}, connectorSettingsKinds()), connectors },
    secrets,
    undefined,
    Object.fromEntries(connectors.map((settings) => [settings.name, sandbox.ca])),
  );
  return {
    sandbox,
    registry,
    clientId,
    async withLicence(set, check) {
      sandbox.setLicensed(set.licensed ?? true);
      try {
        return await check();
      } finally {
        sandbox.setLicensed(true);
      }
    },
    async close() {
      await registry.close();
      await sandbox.close();
    },
  };
}
