import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorSettings } from '../../src/config/connector-settings';
import { ORCHESTRATIONS, requestInstanceId } from '../../src/workflows/names';
import { startTestHost, type TestHost } from './local-host-harness';

/*
 * F10: the same requestId never runs twice, and the same request sent again is recognised
 * as the same however it is spelled (a group as "Sales" or { "name": "Sales" }, attributes
 * in another order); only another request under a used id is a 409. Requests accepted
 * before (stored with the fingerprint of their spelling) are recognised too.
 */

const SCIM = 'scim-sandbox';

let t: TestHost;
beforeAll(async () => {
  t = await startTestHost(
    {},
    {
      sandboxSettings: (settings) =>
        ({
          ...settings,
          mapping: settings.name === SCIM ? { title: 'jobTitle', nickName: 'badge' } : {},
        }) as ConnectorSettings,
    },
  );
});
afterAll(async () => {
  await t?.close();
});

const created = (accountId: string) =>
  t.host.sandboxes!.scim.truthLog().filter((e) => e.accountId === accountId);

describe('the same request sent again', () => {
  it('is a duplicate in any spelling, runs once, and another request under its id is a conflict', async () => {
    const body = {
      requestId: 'fp-spelling',
      connector: SCIM,
      requestedBy: 'ops@contoso.example',
      account: { accountId: 'fp.spelling', attributes: { jobTitle: 'Analyst', badge: 'B-7' } },
      actions: [{ type: 'create' }, { type: 'grant', groups: ['Sales', 'Support'] }],
    };
    const first = await t.api('POST', '/api/requests', body);
    expect(first.status).toBe(202);
    expect((await t.finished('fp-spelling')).status).toBe('succeeded');

    const respellings = [
      body,
      {
        ...body,
        actions: [{ type: 'create' }, { type: 'grant', groups: [{ name: 'Sales' }, 'Support'] }],
      },
      {
        ...body,
        account: { attributes: { badge: 'B-7', jobTitle: 'Analyst' }, accountId: 'fp.spelling' },
      },
      {
        actions: [
          { type: 'create' },
          { groups: [{ name: 'Support' }, { name: 'Sales' }], type: 'grant' },
        ],
        account: body.account,
        requestedBy: body.requestedBy,
        connector: SCIM,
        requestId: 'fp-spelling',
      },
    ];
    for (const [index, again] of respellings.entries()) {
      const answer = await t.api('POST', '/api/requests', again);
      expect(answer.status, `spelling ${index}: ${answer.text}`).toBe(200);
      expect(answer.body).toMatchObject({ requestId: 'fp-spelling', duplicate: true });
    }

    const others = [
      { ...body, actions: [{ type: 'create' }, { type: 'grant', groups: ['Sales'] }] },
      { ...body, account: { ...body.account, attributes: { jobTitle: 'Lead', badge: 'B-7' } } },
      { ...body, requestedBy: 'someone.else@contoso.example' },
    ];
    for (const other of others) {
      const answer = await t.api('POST', '/api/requests', other);
      expect(answer.status, answer.text).toBe(409);
      expect(answer.body.error.code).toBe('REQUEST_CONFLICT');
    }

    // The target saw one create and one add per group: nothing ran again.
    expect(
      created('fp.spelling')
        .map((e) => e.change)
        .sort(),
    ).toEqual(['account created', 'member added', 'member added']);
  }, 60_000);

  it('says that a password sent again with the same request was not used', async () => {
    const create = await t.api('POST', '/api/requests', {
      requestId: 'fp-password-create',
      connector: SCIM,
      account: { accountId: 'fp.password' },
      actions: [{ type: 'create' }],
    });
    expect(create.status).toBe(202);
    expect((await t.finished('fp-password-create')).status).toBe('succeeded');
    const body = {
      requestId: 'fp-password',
      connector: SCIM,
      account: { accountId: 'fp.password' },
      password: 'First-Pw-4711!',
      actions: [{ type: 'setPassword' }],
    };
    expect((await t.api('POST', '/api/requests', body)).status).toBe(202);
    expect((await t.finished('fp-password')).status).toBe('succeeded');

    // A caller that makes a new password for each attempt sends it again with another one.
    const again = await t.api('POST', '/api/requests', { ...body, password: 'Second-Pw-0815!' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ requestId: 'fp-password', duplicate: true });
    // The target's truth: one password write, the first request's; the second never reached it.
    const passwordWrites = created('fp.password').filter((e) => e.change === 'password set');
    expect(passwordWrites).toHaveLength(1);
    // ...and the answer says so, so that the second password is not handed out as the account's.
    expect(again.body.notices).toEqual([
      expect.stringContaining('the password in this body was not used'),
    ]);
    expect(again.text).not.toContain('Second-Pw-0815!');
    expect(again.text).not.toContain('First-Pw-4711!');

    // Without a password in the body, a duplicate has nothing to say.
    const plain = await t.api('POST', '/api/requests', {
      requestId: 'fp-password-create',
      connector: SCIM,
      account: { accountId: 'fp.password' },
      actions: [{ type: 'create' }],
    });
    expect(plain.body).toMatchObject({ duplicate: true });
    expect(plain.body.notices).toBeUndefined();
  });

  it('recognises a request accepted before, stored with the fingerprint of its spelling, in any spelling', async () => {
    // The input the service stored for this request before (test/support/histories): its
    // fingerprint is of the body as sent, with the groups as strings.
    const recorded = JSON.parse(
      readFileSync(join(__dirname, '../support/histories/scim-sandbox-create-grant.json'), 'utf8'),
    ) as { input: { requestId: string; account: { accountId: string } } };
    const { input } = recorded;
    expect(
      await t.host.driver.startNew(
        ORCHESTRATIONS.provisioningRequest,
        requestInstanceId(input.requestId),
        input,
      ),
    ).toBe('started');
    await t.host.driver.waitFor(requestInstanceId(input.requestId), 60_000);
    const before = created(input.account.accountId).length;
    expect(
      created(input.account.accountId).filter((e) => e.change === 'account created'),
    ).toHaveLength(1);

    const asSent = {
      requestId: input.requestId,
      connector: SCIM,
      account: { accountId: 'upgrade.scim', displayName: 'Upgrade Test' },
      actions: [{ type: 'create' }, { type: 'grant', groups: ['Engineering', 'Sales', 'Finance'] }],
    };
    const respelled = {
      ...asSent,
      actions: [
        { type: 'create' },
        { type: 'grant', groups: [{ name: 'Finance' }, { name: 'Engineering' }, 'Sales'] },
      ],
    };
    for (const again of [asSent, respelled]) {
      const answer = await t.api('POST', '/api/requests', again);
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.duplicate).toBe(true);
    }
    const other = await t.api('POST', '/api/requests', {
      ...asSent,
      actions: [{ type: 'create' }, { type: 'grant', groups: ['Engineering'] }],
    });
    expect(other.status).toBe(409);
    expect(created(input.account.accountId).length).toBe(before);
  }, 60_000);
});
