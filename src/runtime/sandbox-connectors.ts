import { randomBytes } from 'node:crypto';
import type { ConnectorSettings } from '../config/connector-settings';
import { graphConnectorSchema } from '../connectors/graph/graph-settings';
import { scimConnectorSchema } from '../connectors/scim/scim-settings';
import { DEFAULT_SANDBOX_CLIENT, startGraphSandbox, type GraphSandbox } from '../sandbox/graph';
import { startScimSandbox, type ScimSandbox } from '../sandbox/scim';

export interface SandboxConnectors {
  settings: ConnectorSettings[];
  /** Secret values for the local secret store: generated per run, never printed. */
  secrets: Record<string, string>;
  /** CA certificates to trust, by connector name. */
  trustedCa: Record<string, string>;
  scim: ScimSandbox;
  graph: GraphSandbox;
  /** The seeded groups' ids by display name, on each sandbox. */
  scimGroups: Record<string, string>;
  graphGroups: Record<string, string>;
  /** The Graph sandbox's dynamic group, whose members the service may not write. */
  graphDynamicGroup: string;
  describe(): string[];
  close(): Promise<void>;
}

export interface SandboxConnectorOptions {
  /** Latency of both sandboxes (benchmarks). */
  latencyMs?: number;
  /** The sandboxes' clock (tests share a virtual or sped-up clock with the replay driver). */
  now?: () => number;
}

const GRAPH_CLIENT_ID = '5c1f3a77-0d2e-4b8a-9e41-7a2b6c9d0e13';

const DEMO_GROUPS = ['Engineering', 'Sales', 'Finance', 'Human Resources', 'Support', 'Marketing'];

/**
 * With no connector configured, the local host and the CLI run against sandboxes
 * (DESIGN: the local host): a SCIM server on loopback that fits every compatibility point,
 * configured as connector "scim-sandbox", and a Graph v1.0 sandbox with its token authority
 * over HTTPS, configured as connector "graph-sandbox".
 */
export async function startSandboxConnectors(
  options: SandboxConnectorOptions = {},
): Promise<SandboxConnectors> {
  const token = randomBytes(24).toString('base64url');
  const scim = await startScimSandbox({
    auth: { type: 'bearer', token },
    ...(options.now === undefined ? {} : { now: options.now }),
    quirks: {
      lastLogonAttribute: 'lastLogin',
      ...(options.latencyMs === undefined ? {} : { latencyMs: options.latencyMs }),
    },
  });
  const scimGroups = scim.seedGroups(DEMO_GROUPS.map((displayName) => ({ displayName })));
  scim.seedUsers([
    { userName: 'existing.user', displayName: 'Existing User', lastLogon: '2026-11-20T08:15:00Z' },
  ]);
  const graphSecret = randomBytes(24).toString('base64url');
  const graph = await startGraphSandbox({
    ...(options.latencyMs === undefined ? {} : { latencyMs: options.latencyMs }),
    ...(options.now === undefined ? {} : { now: options.now }),
    clients: [
      { clientId: GRAPH_CLIENT_ID, secret: graphSecret, roles: [...DEFAULT_SANDBOX_CLIENT.roles] },
    ],
  });
  const users = ['adele.vance', 'alex.wilber', 'megan.bowen'].map((name) =>
    graph.addUser({ userPrincipalName: `${name}@contoso.example`, displayName: name }),
  );
  const graphGroups = DEMO_GROUPS.map((displayName) => graph.addGroup({ displayName }));
  const dynamic = graph.addGroup({
    displayName: 'All Staff (dynamic)',
    groupTypes: ['DynamicMembership'],
    membershipRule: 'user.accountEnabled -eq true',
  });
  graph.addMember(graphGroups[0]!.id, users[0]!.id);
  graph.addMember(graphGroups[1]!.id, graphGroups[0]!.id);
  const settings = [
    scimConnectorSchema.parse({
      name: 'scim-sandbox',
      kind: 'scim',
      baseUrl: scim.baseUrl,
      auth: { type: 'bearer', tokenSecret: 'scim-sandbox-token' },
      advanced: { lastLogonAttribute: 'lastLogin' },
    }),
    graphConnectorSchema.parse({
      name: 'graph-sandbox',
      kind: 'graph',
      tenantId: graph.tenantId,
      clientId: GRAPH_CLIENT_ID,
      clientSecretName: 'graph-sandbox-client-secret',
      upnDomain: 'contoso.example',
      authority: graph.authority,
      graphEndpoint: graph.graphEndpoint,
    }),
  ];
  return {
    settings,
    secrets: { 'scim-sandbox-token': token, 'graph-sandbox-client-secret': graphSecret },
    trustedCa: { 'graph-sandbox': graph.ca },
    scim,
    graph,
    scimGroups: Object.fromEntries(scimGroups.map((group) => [group.displayName, group.id])),
    graphGroups: Object.fromEntries(
      graphGroups.map((group, index) => [DEMO_GROUPS[index]!, group.id]),
    ),
    graphDynamicGroup: dynamic.id,
    describe: () => [
      `scim-sandbox: SCIM 2.0 sandbox at ${scim.endpoint} (bearer auth)`,
      `graph-sandbox: Microsoft Graph v1.0 sandbox at ${graph.graphEndpoint}/v1.0, token authority ${graph.authority}/${graph.tenantId} (HTTPS, self-signed)`,
    ],
    close: async () => {
      await Promise.all([scim.close(), graph.close()]);
    },
  };
}
