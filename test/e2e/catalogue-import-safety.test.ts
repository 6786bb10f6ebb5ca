import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../support/poll-until';
import { startTestHost, type TestHost } from './local-host-harness';

/*
 * A catalogue import marks a role gone only on the target's word (DESIGN invariant 11),
 * and one import per connector runs at a time. Judged by the SCIM sandbox's truth: every
 * group it has is a present role, and only a group it deleted is gone.
 */
let t: TestHost;
beforeAll(async () => {
  t = await startTestHost({}, { sandboxSettings: (s: any) => ({ ...s, pageSize: 2 }) });
});
afterAll(async () => {
  await t?.close();
});

/** The HTTP client of one of the host's connectors, whose calls a test may delay or break. */
function httpOf(name: string): any {
  const registry = t.host.services.registry as any;
  registry.get(name);
  const connector = registry.built.get(name);
  return connector.http ?? connector.context.http;
}

/** Runs `body` with the connector's calls passed through `intercept` first. */
async function intercepting<T>(
  intercept: (call: any, send: (call: any) => Promise<any>) => Promise<any>,
  body: () => Promise<T>,
  connector = 'scim-sandbox',
): Promise<T> {
  const http = httpOf(connector);
  const send = http.send.bind(http);
  http.send = (call: any) => intercept(call, send);
  try {
    return await body();
  } finally {
    http.send = send;
  }
}

async function roles(
  connector = 'scim-sandbox',
): Promise<{ groupId: string; displayName: string; status: string }[]> {
  const answer = await t.api('GET', `/api/connectors/${connector}/roles?includeGone=true`);
  expect(answer.status).toBe(200);
  return answer.body.roles;
}

/** Live groups of the target whose role is not present: each one a verdict without evidence. */
async function liveGroupsNotPresent(connector = 'scim-sandbox'): Promise<string[]> {
  const groups = (connector === 'scim-sandbox'
    ? t.host.sandboxes!.scim.listGroups()
    : t.host.sandboxes!.graph.snapshot().groups) as unknown as {
    id: string;
    displayName: string;
  }[];
  const live = new Map(groups.map((g) => [g.id, g.displayName]));
  const byId = new Map((await roles(connector)).map((role) => [role.groupId, role.status]));
  return [...live].filter(([id]) => byId.get(id) !== 'present').map(([, name]) => name);
}

async function deleteOnTarget(groupId: string): Promise<void> {
  const scim = t.host.sandboxes!.scim;
  const token = t.host.sandboxes!.secrets['scim-sandbox-token'];
  const answer = await fetch(`${scim.endpoint}/Groups/${groupId}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${token}` },
  });
  expect(answer.status).toBe(204);
}

async function createOnTarget(displayName: string): Promise<string> {
  const scim = t.host.sandboxes!.scim;
  const token = t.host.sandboxes!.secrets['scim-sandbox-token'];
  const answer = await fetch(`${scim.endpoint}/Groups`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/scim+json' },
    body: JSON.stringify({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
      displayName,
    }),
  });
  expect(answer.status).toBe(201);
  return ((await answer.json()) as { id: string }).id;
}

const isPage = (call: any, startIndex: number) =>
  call.method === 'GET' &&
  /\/Groups\?/.test(String(call.url)) &&
  new URL(String(call.url)).searchParams.get('startIndex') === String(startIndex);

describe('catalogue import: gone only on proof', () => {
  it('a group deleted between pages shifts them, yet no live group becomes gone and setMemberships still revokes it', async () => {
    expect((await t.importCatalogue('scim-sandbox')).status).toBe('succeeded');
    // Pages of 2: with the first group deleted after page 1, page 2 starts at the fourth.
    const [first, , skipped] = t.host.sandboxes!.scim.listGroups() as any[];
    expect(await liveGroupsNotPresent()).toEqual([]);
    // An account in the group that the shifted pages skip.
    const grant = await t.api('POST', '/api/requests', {
      requestId: 'import-safety-1',
      connector: 'scim-sandbox',
      account: { accountId: 'import.safety' },
      actions: [{ type: 'create' }, { type: 'grant', groups: [skipped.displayName] }],
    });
    expect(grant.status).toBe(202);
    expect((await t.finished('import-safety-1')).status).toBe('succeeded');

    // The administrator deletes the first group while the import is between pages 1 and 2.
    let deleted = false;
    const job = await intercepting(
      async (call, send) => {
        if (!deleted && isPage(call, 3)) {
          deleted = true;
          await deleteOnTarget(first.id);
        }
        return send(call);
      },
      () => t.importCatalogue('scim-sandbox'),
    );
    expect(deleted).toBe(true);
    expect(job.status).toBe('succeeded');
    expect(await liveGroupsNotPresent()).toEqual([]);
    // The deleted group was listed before it went: this pass saw it; the next one proves it gone.
    expect(job.result).toMatchObject({ markedGone: 0, foundById: 1, goneUnconfirmed: 0 });
    expect(job.result.notices.join('\n')).toContain(`"${skipped.displayName}" (${skipped.id})`);
    const next = await t.importCatalogue('scim-sandbox');
    expect(next.result).toMatchObject({ markedGone: 1, foundById: 0 });
    expect((await roles()).find((role) => role.groupId === first.id)?.status).toBe('gone');
    expect(await liveGroupsNotPresent()).toEqual([]);

    const set = await t.api('POST', '/api/requests', {
      requestId: 'import-safety-2',
      connector: 'scim-sandbox',
      account: { accountId: 'import.safety' },
      actions: [{ type: 'setMemberships', groups: [] }],
    });
    expect(set.status).toBe(202);
    expect((await t.finished('import-safety-2')).status).toBe('succeeded');
    const scim = t.host.sandboxes!.scim;
    const user = scim.getUser('import.safety') as any;
    expect(scim.groupIdsOf(user.id)).not.toContain(skipped.id);
  }, 120_000);

  it('a group the pages skip whose read by id fails is left as it was, named in a notice', async () => {
    expect((await t.importCatalogue('scim-sandbox')).status).toBe('succeeded');
    // Pages of 2: with the first group deleted after page 1, page 2 starts at the fourth.
    const [first, , skipped] = t.host.sandboxes!.scim.listGroups() as any[];
    // The first group is deleted between pages, and the target does not answer the read by
    // id of the group the shifted pages skip (its connection refused).
    let moved = false;
    const job = await intercepting(
      async (call, send) => {
        if (!moved && isPage(call, 3)) {
          moved = true;
          await deleteOnTarget(first.id);
        }
        if (call.method === 'GET' && String(call.url).includes(`/Groups/${skipped.id}`)) {
          return send({ ...call, url: new URL('http://127.0.0.1:1/scim/v2/Groups') });
        }
        return send(call);
      },
      () => t.importCatalogue('scim-sandbox'),
    );
    expect(job.status).toBe('succeeded');
    expect(job.result.goneUnconfirmed).toBe(1);
    expect(job.result.notices.join('\n')).toContain(
      `could not tell whether group "${skipped.displayName}"`,
    );
    const after = await roles();
    expect(after.find((role) => role.groupId === skipped.id)?.status).toBe('present');
    expect(await liveGroupsNotPresent()).toEqual([]);
  }, 120_000);
});

describe('catalogue import of a Graph connector: gone only on proof', () => {
  it('a group deleted between pages skips a live one, which a read by id keeps; the next import proves the deleted one gone', async () => {
    expect((await t.importCatalogue('graph-sandbox')).status).toBe('succeeded');
    const graph = t.host.sandboxes!.graph;
    let firstListed: string | undefined;
    let deleted = false;
    const job = await intercepting(
      async (call, send) => {
        const page = String(call.path);
        if (!deleted && call.method === 'GET' && page.includes('$skiptoken')) {
          deleted = true;
          graph.deleteGroup(firstListed!);
        }
        const result = await send(call);
        if (firstListed === undefined && call.method === 'GET' && page === '/groups') {
          firstListed = result.body.value[0].id;
        }
        return result;
      },
      () => t.importCatalogue('graph-sandbox'),
      'graph-sandbox',
    );
    expect(deleted).toBe(true);
    expect(job.status).toBe('succeeded');
    expect(job.result).toMatchObject({ mode: 'full', markedGone: 0, foundById: 1 });
    expect(await liveGroupsNotPresent('graph-sandbox')).toEqual([]);
    const next = await t.importCatalogue('graph-sandbox');
    expect(next.result).toMatchObject({ markedGone: 1, foundById: 0 });
    const gone = (await roles('graph-sandbox')).find((role) => role.groupId === firstListed);
    expect(gone?.status).toBe('gone');
    expect(await liveGroupsNotPresent('graph-sandbox')).toEqual([]);
  }, 120_000);
});

describe('catalogue import: one per connector at a time', () => {
  it('a second import while one runs is refused with 409 naming the running job; no live group becomes gone', async () => {
    await createOnTarget('Import Safety Extra');
    expect((await t.importCatalogue('scim-sandbox')).status).toBe('succeeded');
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let reading = false;
    const [a, b] = await intercepting(
      async (call, send) => {
        if (isPage(call, 1)) {
          reading = true;
          await held;
        }
        return send(call);
      },
      async () => {
        const first = await t.api('POST', '/api/connectors/scim-sandbox/imports', {});
        await until('the first import reads', async () => (reading ? true : undefined));
        const second = await t.api('POST', '/api/connectors/scim-sandbox/imports', {
          overwriteExisting: true,
        });
        release();
        return [first, second];
      },
    );
    expect(a.status).toBe(202);
    expect(b.status).toBe(409);
    expect(b.body.error).toMatchObject({
      code: 'IMPORT_ALREADY_RUNNING',
      object: 'scim-sandbox',
      runningJobId: a.body.jobId,
    });
    expect(b.body.error.message).toContain('scim-sandbox');
    const job = await until(
      'the first import to end',
      async () => {
        const answer = await t.api('GET', `/api/jobs/${a.body.jobId}`);
        return answer.body.status === 'running' ? undefined : answer.body;
      },
      { timeoutMs: 60_000 },
    );
    expect(job.status).toBe('succeeded');
    expect(await liveGroupsNotPresent()).toEqual([]);
    // Once it ended, the next import starts.
    expect((await t.importCatalogue('scim-sandbox')).status).toBe('succeeded');
  }, 120_000);

  it('a job started past the API while another runs fails before it writes, and no live group becomes gone', async () => {
    expect((await t.importCatalogue('scim-sandbox')).status).toBe('succeeded');
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let reading = false;
    const first = await t.api('POST', '/api/connectors/scim-sandbox/imports', {});
    expect(first.status).toBe(202);
    const ids = ['4a1f7a52-6a2e-4f0e-9c57-2b0d0c1d9e01', '4a1f7a52-6a2e-4f0e-9c57-2b0d0c1d9e02'];
    const jobs = await intercepting(
      async (call, send) => {
        if (isPage(call, 1)) {
          reading = true;
          await held;
        }
        return send(call);
      },
      async () => {
        await until('the first import reads', async () => (reading ? true : undefined));
        // As the command line (or a timer racing the API) starts one: no API in between.
        await t.host.driver.startNew('catalogueImport', `job-${ids[0]}`, {
          jobId: ids[0],
          type: 'Import SCIM groups',
          connector: 'scim-sandbox',
          trigger: 'cli',
        });
        const rival = await jobEnd(ids[0]!);
        release();
        return [rival, await jobEnd(first.body.jobId)];
      },
    );
    expect(jobs[0]).toMatchObject({
      status: 'failed',
      error: { code: 'IMPORT_ALREADY_RUNNING', details: { runningJobId: first.body.jobId } },
    });
    expect(jobs[1].status).toBe('succeeded');
    expect(await liveGroupsNotPresent()).toEqual([]);
  }, 120_000);
});

async function jobEnd(jobId: string): Promise<any> {
  return until(
    `job ${jobId} to end`,
    async () => {
      const answer = await t.api('GET', `/api/jobs/${jobId}`);
      return answer.body.status === 'running' || answer.status === 404 ? undefined : answer.body;
    },
    { timeoutMs: 60_000 },
  );
}
