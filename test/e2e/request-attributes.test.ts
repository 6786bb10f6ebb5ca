import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorSettings } from '../../src/config/connector-settings';
import { LocalSecretStore } from '../../src/secrets/local-secret-store';
import { requestInstanceId } from '../../src/workflows/names';
import { startTestHost, type TestHost } from './local-host-harness';

/*
 * F9: a request's further attributes reach the target only through the connector's Mapping.
 * One the Mapping does not name would be dropped without a word, and one named like a secret
 * would sit in clear in the orchestration's history: both are refused before anything is
 * stored or started, and the target is judged by its own truth.
 */

const SCIM = 'scim-sandbox';
const GRAPH = 'graph-sandbox';
const PLANTED = 'Planted-Attr-Pw-9f31';

/** The Mappings of this suite: SCIM writes `jobTitle` (as title) and `userPassword`, Graph `department`. */
function withMappings(settings: ConnectorSettings): ConnectorSettings {
  const mapping =
    settings.name === SCIM
      ? { title: 'jobTitle', nickName: 'userPassword' }
      : { department: 'department' };
  return { ...settings, mapping } as ConnectorSettings;
}

let t: TestHost;
beforeAll(async () => {
  t = await startTestHost({}, { sandboxSettings: withMappings });
});
afterAll(async () => {
  await t?.close();
});

/** What the service holds of a request that was refused: nothing, anywhere. */
async function expectNothingOf(requestId: string, accountId: string) {
  expect(await t.host.driver.getStatus(requestInstanceId(requestId))).toBeUndefined();
  expect((await t.api('GET', `/api/requests/${requestId}`)).status).toBe(404);
  const listed = await t.api('GET', `/api/requests?accountId=${encodeURIComponent(accountId)}`);
  expect(listed.body.requests).toEqual([]);
  const secrets = t.host.services.secrets as LocalSecretStore;
  expect(secrets.names().filter((name) => name.startsWith('request-password-'))).toEqual([]);
}

describe('attributes a connector does not write', () => {
  it('refuses a create naming one the Mapping does not name: 400 naming it and the connector, nothing written', async () => {
    const scim = t.host.sandboxes!.scim;
    const answer = await t.api('POST', '/api/requests', {
      requestId: 'attr-unmapped',
      connector: SCIM,
      account: {
        accountId: 'attr.unmapped',
        attributes: { jobTitle: 'Analyst', department: 'Finance', costCenter: 'C-7' },
      },
      password: 'Unused-Create-Pw-4411',
      actions: [{ type: 'create' }, { type: 'grant', groups: ['Sales'] }],
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({
      code: 'ATTRIBUTE_NOT_MAPPED',
      connector: SCIM,
      attributes: ['department', 'costCenter'],
    });
    expect(answer.body.error.message).toContain('"department", "costCenter"');
    expect(answer.body.error.problems.map((p: { path: string }) => p.path)).toEqual([
      'account.attributes.department',
      'account.attributes.costCenter',
    ]);
    expect(answer.body.error.problems[0].message).toContain(
      'its Mapping names jobTitle, userPassword',
    );
    expect(scim.getUser('attr.unmapped')).toBeUndefined();
    expect(scim.truthLog().filter((e) => e.accountId === 'attr.unmapped')).toEqual([]);
    await expectNothingOf('attr-unmapped', 'attr.unmapped');
  }, 60_000);

  it('refuses an update, a preview and a Graph request alike, and names a spelling that differs only in case', async () => {
    const graph = t.host.sandboxes!.graph;
    const update = await t.api('POST', '/api/requests', {
      requestId: 'attr-update',
      connector: SCIM,
      account: { accountId: 'attr.update', attributes: { JobTitle: 'Lead' } },
      actions: [{ type: 'update' }],
    });
    expect(update.status).toBe(400);
    expect(update.body.error.code).toBe('ATTRIBUTE_NOT_MAPPED');
    expect(update.body.error.problems[0].message).toContain('did you mean "jobTitle"?');
    await expectNothingOf('attr-update', 'attr.update');

    const preview = await t.api('POST', '/api/requests', {
      mode: 'preview',
      connector: SCIM,
      account: { accountId: 'attr.preview', attributes: { department: 'Finance' } },
      actions: [{ type: 'create' }],
    });
    expect(preview.status).toBe(400);
    expect(preview.body.error).toMatchObject({ code: 'ATTRIBUTE_NOT_MAPPED', connector: SCIM });

    const upn = 'attr.graph@contoso.example';
    const onGraph = await t.api('POST', '/api/requests', {
      requestId: 'attr-graph',
      connector: GRAPH,
      account: { accountId: upn, displayName: 'Attr Graph', attributes: { jobTitle: 'Analyst' } },
      actions: [{ type: 'create' }],
    });
    expect(onGraph.status).toBe(400);
    expect(onGraph.body.error).toMatchObject({
      code: 'ATTRIBUTE_NOT_MAPPED',
      connector: GRAPH,
      attributes: ['jobTitle'],
    });
    expect(graph.userIdByUpn(upn)).toBeUndefined();
    await expectNothingOf('attr-graph', upn);
  }, 60_000);

  it('answers a refused body whose requestId names a request accepted before as that request, not as nothing started', async () => {
    const accepted = await t.api('POST', '/api/requests', {
      requestId: 'attr-accepted-before',
      connector: SCIM,
      account: { accountId: 'attr.before', attributes: { jobTitle: 'Analyst' } },
      actions: [{ type: 'create' }],
    });
    expect(accepted.status).toBe(202);
    // The same id again with an attribute the Mapping does not name (say, edited since).
    const again = await t.api('POST', '/api/requests', {
      requestId: 'attr-accepted-before',
      connector: SCIM,
      account: { accountId: 'attr.before', attributes: { department: 'Finance' } },
      actions: [{ type: 'create' }],
    });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({
      code: 'REQUEST_CONFLICT',
      object: 'attr-accepted-before',
      message: expect.stringContaining('names a request accepted before'),
    });
  }, 60_000);

  it('writes the attributes the Mapping names, on SCIM and on Graph, as before', async () => {
    const { scim, graph } = t.host.sandboxes!;
    const a = await t.api('POST', '/api/requests', {
      requestId: 'attr-mapped-scim',
      connector: SCIM,
      account: { accountId: 'attr.mapped', attributes: { jobTitle: 'Analyst' } },
      actions: [{ type: 'create' }],
    });
    expect(a.status).toBe(202);
    expect((await t.finished('attr-mapped-scim')).status).toBe('succeeded');
    expect(scim.getUser('attr.mapped')?.title).toBe('Analyst');

    const upn = 'attr.mapped@contoso.example';
    const b = await t.api('POST', '/api/requests', {
      requestId: 'attr-mapped-graph',
      connector: GRAPH,
      account: { accountId: upn, displayName: 'Attr Mapped', attributes: { department: 'Sales' } },
      actions: [{ type: 'create' }],
    });
    expect(b.status).toBe(202);
    expect((await t.finished('attr-mapped-graph')).status).toBe('succeeded');
    expect(graph.getUser(graph.userIdByUpn(upn)!)?.department).toBe('Sales');
  }, 60_000);
});

describe('attributes named like a secret', () => {
  it('refuses attributes.password with every other problem named, and the password is nowhere', async () => {
    const scim = t.host.sandboxes!.scim;
    const answer = await t.api('POST', '/api/requests', {
      requestId: 'attr-password',
      connector: SCIM,
      account: {
        accountId: 'attr.password',
        attributes: { department: 'Finance', password: PLANTED },
      },
      actions: [{ type: 'create' }],
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('REQUEST_INVALID');
    const problems = answer.body.error.problems as { path: string; message: string }[];
    expect(problems.map((p) => p.path).sort()).toEqual([
      'account.attributes.department',
      'account.attributes.password',
    ]);
    expect(problems.find((p) => p.path.endsWith('password'))?.message).toContain(
      'looks like a secret',
    );
    expect(problems.find((p) => p.path.endsWith('department'))?.message).toContain(
      `connector "${SCIM}" does not write attribute "department"`,
    );
    expect(scim.getUser('attr.password')).toBeUndefined();
    expect(scim.hasPassword('attr.password')).toBe(false);
    await expectNothingOf('attr-password', 'attr.password');
    const kept = [...t.logs, JSON.stringify(t.host.driver.snapshot()), ...t.answers].join('\n');
    expect(kept).not.toContain(PLANTED);
  }, 60_000);

  it('refuses one even where the Mapping names it, in any case', async () => {
    for (const name of ['userPassword', 'APITOKEN', 'clientSecret']) {
      const answer = await t.api('POST', '/api/requests', {
        connector: SCIM,
        account: { accountId: 'attr.mapped.secret', attributes: { [name]: PLANTED } },
        actions: [{ type: 'create' }],
      });
      expect(answer.status, name).toBe(400);
      expect(answer.body.error.problems, name).toEqual([
        {
          path: `account.attributes.${name}`,
          message: expect.stringContaining('looks like a secret'),
        },
      ]);
    }
    expect(t.host.sandboxes!.scim.getUser('attr.mapped.secret')).toBeUndefined();
    expect(t.answers.join('\n')).not.toContain(PLANTED);
  }, 60_000);
});
