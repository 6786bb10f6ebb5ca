import { TableClient, odata } from '@azure/data-tables';
import { expect } from 'vitest';
import type { DriftFinding } from '../../src/domain/drift-finding';
import type { ReconciliationResult } from '../../src/domain/reconciliation-result';
import type { SandboxFaultPlan } from '../../src/sandbox/faults/sandbox-fault-plan';
import { jobInstanceId, requestInstanceId } from '../../src/workflows/names';
import { graphTestClient, type GraphTestClient } from '../integration/sandbox/graph-test-client';
import type { TestStorage } from '../support/azurite-storage';
import type { TestHost } from './local-host-harness';

/** Runs a job to its end through the API and answers its report. */
export async function runJob(t: TestHost, path: string, body?: unknown): Promise<any> {
  const started = await t.api('POST', path, body);
  expect(started.status, started.text).toBe(202);
  await t.host.driver.waitFor(jobInstanceId(started.body.jobId), 120_000);
  const job = await t.api('GET', `/api/jobs/${started.body.jobId}`);
  expect(job.body.status, job.text).toBe('succeeded');
  return job.body;
}

/** Imports both sandboxes' catalogues. */
export async function importCatalogues(t: TestHost): Promise<void> {
  for (const connector of ['scim-sandbox', 'graph-sandbox']) {
    await runJob(t, `/api/connectors/${connector}/imports`, {});
  }
}

/** A provisioning request through the API, to its end; it must succeed. */
export async function provision(t: TestHost, body: Record<string, unknown>): Promise<any> {
  const answer = await t.api('POST', '/api/requests', body);
  expect(answer.status, answer.text).toBe(202);
  await t.host.driver.waitFor(requestInstanceId(answer.body.requestId), 120_000);
  const report = (await t.api('GET', `/api/requests/${answer.body.requestId}`)).body;
  expect(report.status, JSON.stringify(report.steps)).toBe('succeeded');
  return report;
}

/**
 * The five accounts the drift tests change by hand, provisioned through the API with the
 * groups the service assigns them: ada (Engineering), bob (Sales, Engineering), cy (none),
 * dee (Support) and eve (Sales). `accountId` maps each name to the target's account ID.
 */
export async function provisionDriftAccounts(
  t: TestHost,
  connector: string,
  accountId: (name: string) => string = (name) => name,
): Promise<void> {
  const cast: [string, string[]][] = [
    ['ada', ['Engineering']],
    ['bob', ['Sales', 'Engineering']],
    ['cy', []],
    ['dee', ['Support']],
    ['eve', ['Sales']],
  ];
  for (const [name, groups] of cast) {
    await provision(t, {
      connector,
      account: { accountId: accountId(name), displayName: name },
      actions: [{ type: 'create' }, ...(groups.length === 0 ? [] : [{ type: 'grant', groups }])],
    });
  }
}

/** A reconciliation job through the API: its result. */
export async function reconcile(
  t: TestHost,
  connector: string,
): Promise<ReconciliationResult & { jobId: string }> {
  const job = await runJob(t, `/api/connectors/${connector}/reconciliations`);
  return { ...(job.result as ReconciliationResult), jobId: job.jobId as string };
}

/** Every finding of the connector's drift report (all pages), for a filter. */
export async function report(
  t: TestHost,
  connector: string,
  filter: Record<string, string> = {},
): Promise<DriftFinding[]> {
  const findings: DriftFinding[] = [];
  let token: string | undefined;
  do {
    const query = new URLSearchParams({
      ...filter,
      ...(token === undefined ? {} : { continuationToken: token }),
    });
    const page = await t.api('GET', `/api/connectors/${connector}/drift?${query.toString()}`);
    expect(page.status, page.text).toBe(200);
    findings.push(...page.body.findings);
    token = page.body.continuationToken;
  } while (token !== undefined);
  return findings;
}

/** A finding as the tests compare it: what it is about, without times and ids. */
export function gist(finding: DriftFinding) {
  return {
    type: finding.type,
    ...(finding.accountId === undefined ? {} : { accountId: finding.accountId }),
    ...(finding.groupName === undefined ? {} : { groupName: finding.groupName }),
    ...(finding.memberName === undefined ? {} : { memberName: finding.memberName }),
    ...(finding.observedEnabled === undefined ? {} : { observedEnabled: finding.observedEnabled }),
  };
}

/** The SCIM sandbox's own administrators: changes by hand, with their bearer token. */
export function scimAdmin(t: TestHost) {
  const sandboxes = t.host.sandboxes!;
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${sandboxes.scim.endpoint}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${sandboxes.handChanges.scimToken}`,
        'content-type': 'application/scim+json',
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    expect(response.status, `${method} ${path}: ${text}`).toBeLessThan(300);
    return text === '' ? undefined : (JSON.parse(text) as Record<string, any>);
  };
  const patch = (path: string, ...operations: unknown[]) =>
    call('PATCH', path, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: operations,
    });
  return {
    call,
    addMember: (groupId: string, value: string) =>
      patch(`/Groups/${groupId}`, { op: 'add', path: 'members', value: [{ value }] }),
    removeMember: (groupId: string, value: string) =>
      patch(`/Groups/${groupId}`, { op: 'remove', path: `members[value eq "${value}"]` }),
    setActive: (userId: string, active: boolean) =>
      patch(`/Users/${userId}`, { op: 'replace', path: 'active', value: active }),
    deleteUser: (userId: string) => call('DELETE', `/Users/${userId}`),
    createUser: (userName: string) =>
      call('POST', '/Users', {
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
        userName,
        active: true,
      }),
  };
}

/** Replicas lag up to this long behind the primary in the drift tests (virtual ms). */
export const GRAPH_LAG = { min: 1_000, max: 20_000 };

/** The fault plan each test host's Graph sandbox runs with, for `byHand` to restore. */
const plans = new WeakMap<TestHost, SandboxFaultPlan | undefined>();

/**
 * The Graph sandbox as graph-behaviour.md says Graph is: reads served by replicas lagging up
 * to 20 s, and, where a test's point allows, answers lost after the write was applied.
 */
export function graphAsReferenceSays(t: TestHost, options: { lostAnswers: boolean }): void {
  const graph = t.host.sandboxes!.graph;
  graph.setReplicationDelay(GRAPH_LAG);
  const plan = options.lostAnswers ? { seed: 18, lostAnswerRate: 0.2 } : undefined;
  plans.set(t, plan);
  graph.setFaults(plan);
}

/**
 * Changes by hand through the Graph sandbox's stand-in for the Entra admin center. An
 * administrator's answers are not what the tests judge, so none is lost meanwhile (replicas
 * still lag). Setting the plan again restarts its seeded streams and zeroes `faultCounts()`:
 * a test that counts faults reads them after its last change by hand.
 */
export async function byHand<T>(t: TestHost, change: (portal: GraphTestClient) => Promise<T>) {
  const graph = t.host.sandboxes!.graph;
  const portal = await graphPortal(t);
  graph.setFaults(undefined);
  try {
    return await change(portal);
  } finally {
    graph.setFaults(plans.get(t));
    await portal.close();
  }
}

/** The Graph sandbox's stand-in for the Entra admin center: changes by hand. */
export async function graphPortal(t: TestHost): Promise<GraphTestClient> {
  const sandboxes = t.host.sandboxes!;
  return graphTestClient(sandboxes.graph, sandboxes.handChanges.graphPortal);
}

/**
 * Deletes a finding's rows from the host's storage right after the service first reads it
 * (a cleanup by hand, another process): what the service writes next meets no row. Answers
 * how to stop.
 */
export function removeAfterFirstRead(
  t: TestHost,
  storage: TestStorage,
  findingId: string,
): () => void {
  const connection =
    storage.connection.kind === 'connectionString' ? storage.connection.connectionString : '';
  const table = TableClient.fromConnectionString(connection, 'DriftFindings', {
    allowInsecureConnection: true,
  });
  const { drift } = t.host.services;
  const get = drift.get.bind(drift);
  let removed = false;
  drift.get = async (connector, id) => {
    const found = await get(connector, id);
    if (id === findingId && !removed) {
      removed = true;
      for await (const row of table.listEntities({
        queryOptions: { filter: odata`findingId eq ${findingId}` },
      })) {
        await table.deleteEntity(row.partitionKey!, row.rowKey!);
      }
    }
    return found;
  };
  return () => {
    drift.get = get;
  };
}
