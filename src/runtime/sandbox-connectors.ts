import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { ConnectorSettings } from '../config/connector-settings';
import { graphConnectorSchema } from '../connectors/graph/graph-settings';
import { scimConnectorSchema } from '../connectors/scim/scim-settings';
import {
  DEFAULT_SANDBOX_CLIENT,
  startGraphSandbox,
  type DirectorySnapshot,
  type GraphSandbox,
} from '../sandbox/graph';
import { startScimSandbox, type ScimSandbox, type ScimStoreSnapshot } from '../sandbox/scim';
import { readStateFile, writeStateFile } from './state-file';

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
  /**
   * Credentials of the sandboxes' own administrators, made for this run: changes made with
   * them are changes "by hand", outside the service (issue 18), which reconciliation finds.
   * The service's credentials are others, and never printed.
   */
  handChanges: {
    /** A bearer token the SCIM sandbox takes besides the service's. */
    scimToken: string;
    /** An app registration standing for the Entra admin center: every permission, Global Administrator. */
    graphPortal: { clientId: string; secret: string };
  };
  describe(): string[];
  close(): Promise<void>;
}

export interface SandboxConnectorOptions {
  /** Latency of both sandboxes (benchmarks). */
  latencyMs?: number;
  /** The sandboxes' clock (tests share a virtual or sped-up clock with the replay driver). */
  now?: () => number;
  /**
   * A folder to keep the sandboxes' users, groups and memberships in (the local host's state
   * folder): read at start instead of seeding the demo directory, written after every change
   * before it is answered. Default: in memory.
   */
  stateDir?: string;
}

const GRAPH_CLIENT_ID = '5c1f3a77-0d2e-4b8a-9e41-7a2b6c9d0e13';
/** The Graph sandbox's stand-in for the Entra admin center: what a person changes by hand. */
const PORTAL_CLIENT_ID = '9e0b7d21-4c3a-4f5e-8d16-2a7c0b3e9f54';
const PORTAL_ROLES = ['Directory.ReadWrite.All', 'User.ReadWrite.All', 'GroupMember.ReadWrite.All'];

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
  const files =
    options.stateDir === undefined
      ? undefined
      : {
          scim: join(options.stateDir, 'scim-sandbox.json'),
          graph: join(options.stateDir, 'graph-sandbox.json'),
        };
  const keptScim = files === undefined ? undefined : readStateFile<ScimStoreSnapshot>(files.scim);
  const keptGraph = files === undefined ? undefined : readStateFile<DirectorySnapshot>(files.graph);
  const token = randomBytes(24).toString('base64url');
  const adminToken = randomBytes(24).toString('base64url');
  const portalSecret = randomBytes(24).toString('base64url');
  const saveScim = () => {
    if (files !== undefined) writeStateFile(files.scim, scim.snapshot());
  };
  const saveGraph = () => {
    if (files !== undefined) writeStateFile(files.graph, graph.snapshot());
  };
  const scim: ScimSandbox = await startScimSandbox({
    auth: { type: 'bearer', token },
    adminToken,
    ...(options.now === undefined ? {} : { now: options.now }),
    quirks: {
      lastLogonAttribute: 'lastLogin',
      ...(options.latencyMs === undefined ? {} : { latencyMs: options.latencyMs }),
    },
    ...(keptScim === undefined ? {} : { restore: keptScim }),
    ...(files === undefined ? {} : { onChange: saveScim }),
  });
  if (keptScim === undefined) {
    scim.seedGroups(DEMO_GROUPS.map((displayName) => ({ displayName })));
    scim.seedUsers([
      {
        userName: 'existing.user',
        displayName: 'Existing User',
        lastLogon: '2026-11-20T08:15:00Z',
      },
    ]);
    saveScim();
  }
  const graphSecret = randomBytes(24).toString('base64url');
  const graph: GraphSandbox = await startGraphSandbox({
    ...(options.latencyMs === undefined ? {} : { latencyMs: options.latencyMs }),
    ...(options.now === undefined ? {} : { now: options.now }),
    clients: [
      { clientId: GRAPH_CLIENT_ID, secret: graphSecret, roles: [...DEFAULT_SANDBOX_CLIENT.roles] },
      {
        clientId: PORTAL_CLIENT_ID,
        secret: portalSecret,
        roles: [...PORTAL_ROLES],
        directoryRoles: ['Global Administrator'],
      },
    ],
    ...(keptGraph === undefined ? {} : { restore: keptGraph }),
    ...(files === undefined ? {} : { onChange: saveGraph }),
  });
  if (keptGraph === undefined) {
    seedGraphDemo(graph);
    saveGraph();
  }
  const graphByName = new Map(graph.snapshot().groups.map((g) => [String(g['displayName']), g.id]));
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
    scimGroups: idsByName((name) => scim.getGroup(name)?.id as string | undefined),
    graphGroups: idsByName((name) => graphByName.get(name)),
    graphDynamicGroup: graphByName.get(DYNAMIC_GROUP) ?? '',
    handChanges: {
      scimToken: adminToken,
      graphPortal: { clientId: PORTAL_CLIENT_ID, secret: portalSecret },
    },
    describe: () => [
      ...(keptScim === undefined && keptGraph === undefined
        ? []
        : ['Sandboxes: the users, groups and memberships kept in the state folder']),
      `scim-sandbox: SCIM 2.0 sandbox at ${scim.endpoint} (bearer auth)`,
      `graph-sandbox: Microsoft Graph v1.0 sandbox at ${graph.graphEndpoint}/v1.0, token authority ${graph.authority}/${graph.tenantId} (HTTPS, self-signed)`,
    ],
    close: async () => {
      await Promise.all([scim.close(), graph.close()]);
    },
  };
}

const DYNAMIC_GROUP = 'All Staff (dynamic)';

/** The demo directory of a fresh Graph sandbox: three users, the demo groups, one dynamic group. */
function seedGraphDemo(graph: GraphSandbox): void {
  const users = ['adele.vance', 'alex.wilber', 'megan.bowen'].map((name) =>
    graph.addUser({ userPrincipalName: `${name}@contoso.example`, displayName: name }),
  );
  const groups = DEMO_GROUPS.map((displayName) => graph.addGroup({ displayName }));
  graph.addGroup({
    displayName: DYNAMIC_GROUP,
    groupTypes: ['DynamicMembership'],
    membershipRule: 'user.accountEnabled -eq true',
  });
  graph.addMember(groups[0]!.id, users[0]!.id);
  graph.addMember(groups[1]!.id, groups[0]!.id);
}

/** The demo groups' ids by name, as a sandbox knows them now. */
function idsByName(idOf: (name: string) => string | undefined): Record<string, string> {
  return Object.fromEntries(
    DEMO_GROUPS.flatMap((name) => {
      const id = idOf(name);
      return id === undefined ? [] : [[name, id]];
    }),
  );
}
