import { describe, expect, it } from 'vitest';
import type { TargetAccount } from '../../../src/domain/account';
import { PreviewIo, READ_OPS, type ReadOp } from '../../../src/domain/preview-io';
import type { IoResult } from '../../../src/domain/step-machine';
import type { MembershipWriteAnswer } from '../../../src/domain/target-answers';

const ada: TargetAccount = {
  id: 'u-ada',
  accountId: 'ada',
  enabled: true,
  profile: { displayName: 'Ada' },
};

/** Reads answered from a fixed target: Ada, a member of g-sales. Every read is recorded. */
function target(accounts: TargetAccount[] = [ada], groups: Record<string, string[]> = {}) {
  const reads: { op: ReadOp; input: Record<string, unknown> }[] = [];
  const member = { 'u-ada': ['g-sales'], ...groups };
  const perform = async (op: ReadOp, raw: unknown): Promise<IoResult<unknown>> => {
    const input = raw as Record<string, unknown>;
    expect(READ_OPS).toContain(op);
    reads.push({ op, input });
    switch (op) {
      case 'findAccount': {
        const account = accounts.find((a) => a.accountId === input.accountId) ?? null;
        return { ok: true, value: { account, record: null } };
      }
      case 'readAccount': {
        const id = (input.account as TargetAccount).id;
        return { ok: true, value: accounts.find((a) => a.id === id) ?? null };
      }
      case 'readMemberships': {
        const id = (input.account as TargetAccount).id;
        const asked = input.groupIds as string[];
        const shown = (member[id as keyof typeof member] ?? []).filter((g) => asked.includes(g));
        return { ok: true, value: { groupIds: shown, names: {}, notices: [] } };
      }
      default:
        return { ok: true, value: [] };
    }
  };
  return { reads, perform };
}

const write = (add: string[], remove: string[] = [], account: TargetAccount = ada) => ({
  connector: 'hr',
  account,
  add,
  remove,
  names: { 'g-sales': 'Sales', 'g-hr': 'HR' },
  writable: ['g-sales', 'g-hr'],
  intentKey: 'k',
});

const answers = (result: IoResult<unknown>) =>
  (result as { value: MembershipWriteAnswer[] }).value.map((a) => [a.change, a.groupId, a.outcome]);

describe('PreviewIo', () => {
  it('answers a write from what the reads show, without sending it', async () => {
    const { perform, reads } = target();
    const io = new PreviewIo(perform, 0);

    const result = await io.perform('writeMemberships', write(['g-sales', 'g-hr']));

    expect(answers(result)).toEqual([
      ['added', 'g-sales', 'already'],
      ['added', 'g-hr', 'applied'],
    ]);
    expect(reads.map((r) => r.op)).toEqual(['readAccount', 'readMemberships']);
  });

  it('lets a later step read what an earlier simulated write left', async () => {
    const { perform } = target();
    const io = new PreviewIo(perform, 0);
    await io.perform('writeMemberships', write(['g-hr'], ['g-sales']));

    const read = await io.perform('readMemberships', {
      connector: 'hr',
      account: ada,
      groupIds: ['g-sales', 'g-hr'],
    });
    const again = await io.perform('writeMemberships', write(['g-hr']));

    expect((read as { value: { groupIds: string[] } }).value.groupIds).toEqual(['g-hr']);
    expect(answers(again)).toEqual([['added', 'g-hr', 'already']]);
  });

  it('creates an account the target does not have, and reads nothing of it on the target', async () => {
    const { perform, reads } = target([]);
    const io = new PreviewIo(perform, 0);

    const created = await io.perform('createAccount', {
      connector: 'hr',
      profile: { accountId: 'grace', displayName: 'Grace' },
      intentKey: 'k',
    });
    const account = (created as { value: { outcome: string; account: TargetAccount } }).value;
    expect(account.outcome).toBe('created');
    const readsAfterCreate = reads.length;
    const granted = await io.perform('writeMemberships', write(['g-hr'], [], account.account));
    const shown = await io.perform('readMemberships', {
      connector: 'hr',
      account: account.account,
      groupIds: ['g-hr'],
    });
    const found = await io.perform('findAccount', { connector: 'hr', accountId: 'grace' });

    expect(answers(granted)).toEqual([['added', 'g-hr', 'applied']]);
    expect((shown as { value: { groupIds: string[] } }).value.groupIds).toEqual(['g-hr']);
    expect((found as { value: { account: TargetAccount } }).value.account.accountId).toBe('grace');
    // Only the lookup reached the target: the new account's groups are the preview's own.
    expect(reads.slice(readsAfterCreate).map((r) => r.op)).toEqual(['findAccount']);
  });

  it('on a taken account ID, adopts the account its record links and meets ACCOUNT_EXISTS on any other, as a request does', async () => {
    const create = { connector: 'hr', profile: { accountId: 'ada' }, intentKey: 'k' };
    const unlinked = new PreviewIo(target().perform, 0);
    expect(await unlinked.perform('createAccount', create)).toMatchObject({
      ok: true,
      value: { outcome: 'taken', account: { id: 'u-ada' } },
    });
    const { perform } = target();
    const linked = new PreviewIo(async (op, input) => {
      const answer = await perform(op, input);
      if (op !== 'findAccount' || !answer.ok) return answer;
      const record = { connector: 'hr', accountId: 'ada', targetId: 'u-ada' };
      return { ok: true, value: { ...(answer.value as object), record } };
    }, 0);
    expect(await linked.perform('createAccount', create)).toMatchObject({
      ok: true,
      value: { outcome: 'adopted', account: { id: 'u-ada' } },
    });
  });

  it('has no account after a simulated delete; a second delete finds it absent', async () => {
    const io = new PreviewIo(target().perform, 0);

    expect(await io.perform('deleteAccount', { connector: 'hr', account: ada })).toMatchObject({
      value: { outcome: 'deleted' },
    });
    expect(await io.perform('readAccount', { connector: 'hr', account: ada })).toEqual({
      ok: true,
      value: null,
    });
    expect(await io.perform('deleteAccount', { connector: 'hr', account: ada })).toMatchObject({
      value: { outcome: 'absent' },
    });
    expect(
      await io.perform('setAccountEnabled', { connector: 'hr', account: ada, enabled: false }),
    ).toMatchObject({ ok: false, error: { code: 'ACCOUNT_NOT_FOUND', object: 'ada' } });
  });

  it('shows an update in later reads only for the attributes the target reads back', async () => {
    const io = new PreviewIo(target().perform, 0);
    await io.perform('updateAccount', {
      connector: 'hr',
      account: ada,
      changes: { displayName: 'Ada L.', email: 'ada@example.org' },
    });
    await io.perform('setAccountEnabled', { connector: 'hr', account: ada, enabled: false });

    const read = await io.perform('readAccount', { connector: 'hr', account: ada });

    expect(read).toEqual({
      ok: true,
      value: { ...ada, enabled: false, profile: { displayName: 'Ada L.' } },
    });
  });

  it("lets the machines' waits pass at once, on its own clock", async () => {
    const io = new PreviewIo(target().perform, 1_000);
    await io.sleep(30_000);
    expect(io.now()).toBe(31_000);
  });
});
