import { afterEach, describe, expect, it } from 'vitest';
import { runAccountStep } from '../../../src/connectors/direct-io';
import { TOKEN, startScimTarget, type ScimTarget } from '../../support/scim-target';

let target: ScimTarget | undefined;
afterEach(async () => {
  await target?.close();
  target = undefined;
});

/** An address added on the target by its own administrators, outside the service. */
async function addAddressByHand(t: ScimTarget, id: string, email: Record<string, unknown>) {
  const answer = await fetch(`${t.sandbox.baseUrl}/scim/v2/Users/${id}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/scim+json' },
    body: JSON.stringify({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'add', path: 'emails', value: [email] }],
    }),
  });
  expect(answer.status).toBe(200);
}

const emailsOf = (t: ScimTarget, accountId: string) =>
  (t.sandbox.getUser(accountId)?.emails ?? []) as Array<Record<string, unknown>>;

describe('an e-mail change (spec: the identity e-mail is the primary address)', () => {
  it('replaces only the primary address: a second address on the target survives', async () => {
    target = await startScimTarget();
    const t = target;
    const created = await t.connector.createAccount({ accountId: 'ann', email: 'ann@old.example' });
    if (created.outcome !== 'created') throw new Error(`not created: ${created.outcome}`);
    await addAddressByHand(t, created.account.id, { value: 'ann@home.example', type: 'home' });

    await t.connector.updateAccount(created.account, { email: 'ann@new.example' });

    expect(emailsOf(t, 'ann')).toEqual([
      expect.objectContaining({ value: 'ann@new.example', primary: true }),
      expect.objectContaining({ value: 'ann@home.example', type: 'home' }),
    ]);
    expect(t.sandbox.requests.at(-1)?.body).toMatchObject({
      Operations: [
        { op: 'replace', path: 'emails[primary eq true].value', value: 'ann@new.example' },
      ],
    });
    const shown = await t.connector.readAccount(created.account);
    expect(shown?.profile?.email).toBe('ann@new.example');
  });

  it("the service's update step ends verified, and the second address is still there", async () => {
    target = await startScimTarget();
    const t = target;
    const created = await t.connector.createAccount({ accountId: 'dee', email: 'dee@old.example' });
    if (created.outcome !== 'created') throw new Error(`not created: ${created.outcome}`);
    await addAddressByHand(t, created.account.id, { value: 'dee@home.example', type: 'home' });

    const outcome = await runAccountStep(t.connector, created.account, 'update', undefined, {
      accountId: 'dee',
      email: 'dee@new.example',
    });

    expect(outcome).toMatchObject({ ok: true, changes: [{ change: 'account updated' }] });
    expect(emailsOf(t, 'dee').map((e) => e.value)).toEqual(['dee@new.example', 'dee@home.example']);
  });

  it('adds the address as the primary one where the target has none (400 noTarget)', async () => {
    target = await startScimTarget();
    const t = target;
    const created = await t.connector.createAccount({ accountId: 'bob' });
    if (created.outcome !== 'created') throw new Error(`not created: ${created.outcome}`);
    await addAddressByHand(t, created.account.id, { value: 'bob@home.example', type: 'home' });

    await t.connector.updateAccount(created.account, { email: 'bob@work.example' });

    expect(t.sandbox.requests.slice(-2).map((r) => r.status)).toEqual([400, 200]);
    expect(emailsOf(t, 'bob')).toEqual([
      expect.objectContaining({ value: 'bob@home.example', type: 'home' }),
      { value: 'bob@work.example', type: 'work', primary: true },
    ]);
  });

  it('with emailUpdateStyle wholeList, replaces the whole list, as that setting says', async () => {
    target = await startScimTarget({}, { emailUpdateStyle: 'wholeList' });
    const t = target;
    const created = await t.connector.createAccount({ accountId: 'cy', email: 'cy@old.example' });
    if (created.outcome !== 'created') throw new Error(`not created: ${created.outcome}`);
    await addAddressByHand(t, created.account.id, { value: 'cy@home.example', type: 'home' });

    await t.connector.updateAccount(created.account, { email: 'cy@new.example' });

    expect(emailsOf(t, 'cy')).toEqual([{ value: 'cy@new.example', type: 'work', primary: true }]);
  });
});
