import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startSandboxConnectors,
  type SandboxConnectors,
} from '../../src/runtime/sandbox-connectors';
import type { TruthEvent } from '../../src/sandbox/truth';
import { until as pollUntil } from '../support/poll-until';
import { ensureBuilt, startLocalHostProcess, type LocalHostProcess } from './local-host-process';

/**
 * Issue 14, part 4: the local host keeps its state. The sandboxes run here, in the test's
 * process, and keep running; the local host runs as `npm start` runs it, in a child process
 * that is killed with SIGKILL while requests are in flight and started again on the same
 * state folder. Judged by the sandboxes' truth logs against the journal.
 */
const API_KEY = randomBytes(24).toString('base64url');
const REQUESTS = 20;
/** Each sandbox call takes this long, so that requests are still running at the kill. */
const LATENCY_MS = 120;

let sandboxes: SandboxConnectors;
let folder: string;
let env: Record<string, string>;
const hosts: LocalHostProcess[] = [];

beforeAll(async () => {
  ensureBuilt();
  sandboxes = await startSandboxConnectors({ latencyMs: LATENCY_MS });
  folder = await mkdtemp(join(tmpdir(), 'local-host-restart-'));
  const ca = join(folder, 'graph-sandbox-ca.pem');
  await writeFile(ca, sandboxes.graph.ca);
  env = {
    PROVISIONING_CONNECTORS: JSON.stringify(sandboxes.settings),
    SECRET_STORE: 'local',
    LOCAL_SECRETS: JSON.stringify(sandboxes.secrets),
    LOCAL_HOST_PORT: '0',
    LOCAL_HOST_API_KEY: API_KEY,
    LOG_LEVEL: 'warn',
    // Only the child trusts the sandbox's self-signed certificate; it has no other use.
    NODE_EXTRA_CA_CERTS: ca,
  };
}, 180_000);

afterAll(async () => {
  await Promise.all(hosts.map((host) => host.kill()));
  await sandboxes?.close();
  if (folder !== undefined) await rm(folder, { recursive: true, force: true });
});

async function start(): Promise<LocalHostProcess> {
  const host = await startLocalHostProcess(['--state', join(folder, 'state')], env);
  hosts.push(host);
  return host;
}

async function api(host: LocalHostProcess, method: string, path: string, body?: unknown) {
  const response = await fetch(`${host.url}/api${path}`, {
    method,
    headers: { 'x-functions-key': API_KEY, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as any };
}

/** The restarts take a while: each wait allows two minutes. */
function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  return pollUntil(what, probe, { timeoutMs: 120_000, everyMs: 100 });
}

const accounts = Array.from({ length: REQUESTS }, (_, i) => {
  const connector = i % 2 === 0 ? 'scim-sandbox' : 'graph-sandbox';
  const accountId =
    connector === 'scim-sandbox' ? `restart.user${i}` : `restart.user${i}@contoso.example`;
  return { requestId: `restart-${i}`, connector, accountId };
});

function requestBody(account: (typeof accounts)[number]) {
  return {
    requestId: account.requestId,
    connector: account.connector,
    account: { accountId: account.accountId, displayName: `Restart ${account.requestId}` },
    actions: [
      { type: 'create' },
      { type: 'grant', groups: ['Engineering', 'Sales'] },
      { type: 'lock' },
      { type: 'revoke', groups: ['Sales'] },
    ],
  };
}

/** A change as both the truth log and the journal name it. */
const changeOf = (change: string, groupId?: string) =>
  groupId === undefined ? change : `${change} ${groupId}`;

describe('npm start keeps its state across a kill -9', () => {
  it('ends all 20 requests in flight at the kill once, journaled once each, and keeps what came before', async () => {
    const first = await start();
    const job = await api(first, 'POST', '/connectors/scim-sandbox/imports', {});
    expect(job.status).toBe(202);
    await until('the import job', async () => {
      const state = await api(first, 'GET', `/jobs/${job.body.jobId}`);
      return state.body.status === 'succeeded' ? state.body : undefined;
    });
    // One request, finished before the kill.
    const early = {
      requestId: 'restart-early',
      connector: 'scim-sandbox',
      accountId: 'early.bird',
    };
    expect((await api(first, 'POST', '/requests', requestBody(early))).status).toBe(202);
    await until('the early request', async () => {
      const state = await api(first, 'GET', `/requests/${early.requestId}`);
      return state.body.status === 'succeeded' ? true : undefined;
    });

    for (const account of accounts) {
      expect((await api(first, 'POST', '/requests', requestBody(account))).status).toBe(202);
    }
    // Kill once some requests are through, while others are still running.
    const atKill = await until('the first requests to finish', async () => {
      const states = await Promise.all(
        accounts.map(async (account) => {
          const answer = await api(first, 'GET', `/requests/${account.requestId}`);
          return answer.body.status as string;
        }),
      );
      return states.some((status) => status === 'succeeded') ? states : undefined;
    });
    await first.kill();
    const unfinished = atKill.filter((status) => status !== 'succeeded').length;
    expect(unfinished).toBeGreaterThan(0);

    const second = await start();
    expect(second.output()).toMatch(
      /State: .* \(\d+ requests and jobs kept, \d+ unfinished resumed/,
    );
    const reports = await until('every request to end', async () => {
      const answers = await Promise.all(
        [...accounts, early].map((account) => api(second, 'GET', `/requests/${account.requestId}`)),
      );
      return answers.every((answer) => ['succeeded', 'failed'].includes(answer.body.status))
        ? answers.map((answer) => answer.body)
        : undefined;
    });
    const lost = reports.filter((report) => report.status !== 'succeeded');
    expect(lost).toEqual([]);

    // The journal holds each true change once: none missing, none doubled, none invented.
    const truth: TruthEvent[] = [...sandboxes.scim.truthLog(), ...sandboxes.graph.truthLog()];
    const problems: string[] = [];
    for (const account of [...accounts, early]) {
      const journal = await api(
        second,
        'GET',
        `/journal?connector=${account.connector}&accountId=${encodeURIComponent(account.accountId)}&limit=100`,
      );
      const journaled = (journal.body.entries as { change: string; groupId?: string }[])
        .map((entry) => changeOf(entry.change, entry.groupId))
        .sort();
      const happened = truth
        .filter((event) => event.accountId === account.accountId.toLowerCase())
        .filter((event) => event.cascade !== true)
        .map((event) => changeOf(event.change, event.groupId))
        .sort();
      if (JSON.stringify(journaled) !== JSON.stringify(happened)) {
        problems.push(
          `${account.requestId}: journal ${journaled.join(', ')}; truth ${happened.join(', ')}`,
        );
      }
      expect(happened).toHaveLength(5);
    }
    expect(problems).toEqual([]);

    // What came before the kill is still there: the import job, its roles, the early request.
    expect((await api(second, 'GET', `/jobs/${job.body.jobId}`)).body).toMatchObject({
      status: 'succeeded',
      result: { groups: 6 },
    });
    const roles = await api(second, 'GET', '/connectors/scim-sandbox/roles');
    expect(roles.body.roles).toHaveLength(6);
    await second.stop();
  }, 300_000);

  it('keeps the sandboxes of npm start too, and starts clean with --fresh', async () => {
    const state = join(folder, 'with-sandboxes');
    const ownEnv = { LOCAL_HOST_PORT: '0', LOCAL_HOST_API_KEY: API_KEY, LOG_LEVEL: 'warn' };
    const first = await startLocalHostProcess(['--state', state], ownEnv);
    hosts.push(first);
    const bodies = [
      { connector: 'scim-sandbox', accountId: 'kept.user' },
      { connector: 'graph-sandbox', accountId: 'kept.user@contoso.example' },
    ].map(({ connector, accountId }) => ({
      requestId: `kept-${connector}`,
      connector,
      account: { accountId, displayName: 'Kept User' },
      actions: [{ type: 'create' }, { type: 'grant', groups: ['Support'] }],
    }));
    for (const body of bodies)
      expect((await api(first, 'POST', '/requests', body)).status).toBe(202);
    for (const body of bodies) {
      await until(body.requestId, async () => {
        const answer = await api(first, 'GET', `/requests/${body.requestId}`);
        return answer.body.status === 'succeeded' ? true : undefined;
      });
    }
    await first.kill();

    const second = await startLocalHostProcess(['--state', state], ownEnv);
    hosts.push(second);
    expect(second.output()).toContain('the users, groups and memberships kept in the state folder');
    for (const body of bodies) {
      expect((await api(second, 'GET', `/requests/${body.requestId}`)).body.status).toBe(
        'succeeded',
      );
      const account = await api(
        second,
        'GET',
        `/connectors/${body.connector}/accounts/${encodeURIComponent(body.account.accountId)}`,
      );
      expect(account.status).toBe(200);
      // The sandbox kept the membership: revoking it is an effective change.
      const revoke = {
        ...body,
        requestId: `${body.requestId}-revoke`,
        actions: [{ type: 'revoke', groups: ['Support'] }],
      };
      expect((await api(second, 'POST', '/requests', revoke)).status).toBe(202);
      const report = await until(revoke.requestId, async () => {
        const answer = await api(second, 'GET', `/requests/${revoke.requestId}`);
        return ['succeeded', 'failed'].includes(answer.body.status) ? answer.body : undefined;
      });
      expect(report).toMatchObject({
        status: 'succeeded',
        steps: [{ changes: [{ change: 'member removed', groupName: 'Support' }] }],
      });
    }
    await second.stop();

    const fresh = await startLocalHostProcess(['--state', state, '--fresh'], ownEnv);
    hosts.push(fresh);
    expect(fresh.output()).toMatch(/State: .* \(new;/);
    expect((await api(fresh, 'GET', `/requests/${bodies[0]!.requestId}`)).status).toBe(404);
    const gone = await api(fresh, 'GET', '/connectors/scim-sandbox/accounts/kept.user');
    expect(gone.status).toBe(404);
    await fresh.stop();
  }, 300_000);
});
