import { describe, expect, it } from 'vitest';
import {
  applyRecordUpdate,
  isLinked,
  recentGroupWrite,
  wasDeleted,
} from '../../../src/domain/account-record';

const at = '2026-11-23T08:00:00.000Z';

describe('applyRecordUpdate', () => {
  it('marks the enabled state not known after an unconfirmed lock, until a write or a read settles it', () => {
    const later = '2026-11-23T08:01:00.000Z';
    const known = applyRecordUpdate(undefined, 'hr', 'ada', {
      link: { targetId: 'u1', linkedAt: at, createdAt: at },
      enabled: { value: true, at },
    });
    const unknown = applyRecordUpdate(known, 'hr', 'ada', {
      enabledUnconfirmed: { value: false, at: later },
    });
    expect(unknown?.enabled).toBeUndefined();
    expect(unknown).toMatchObject({ enabledAt: later, enabledUnconfirmed: false });
    // A step that writes nothing about the state leaves it not known.
    expect(applyRecordUpdate(unknown, 'hr', 'ada', { granted: ['g1'] })).toMatchObject({
      enabledUnconfirmed: false,
    });
    const settled = applyRecordUpdate(unknown, 'hr', 'ada', { enabled: { value: true, at } });
    expect(settled).toMatchObject({ enabled: true, enabledAt: at });
    expect(settled?.enabledUnconfirmed).toBeUndefined();
    // Another object under the account ID knows nothing of the old one's state.
    const relinked = applyRecordUpdate(unknown, 'hr', 'ada', {
      link: { targetId: 'u2', linkedAt: later },
    });
    expect(relinked?.enabledUnconfirmed).toBeUndefined();
  });

  it('links a new account and tracks the groups the service grants and revokes', () => {
    const linked = applyRecordUpdate(undefined, 'hr', 'ada', {
      link: { targetId: 'u1', linkedAt: at, createdAt: at },
      enabled: { value: true, at },
    });
    expect(linked).toEqual({
      connector: 'hr',
      accountId: 'ada',
      targetId: 'u1',
      linkedAt: at,
      createdAt: at,
      enabled: true,
      enabledAt: at,
      assignedGroups: [],
    });
    const granted = applyRecordUpdate(linked, 'hr', 'ada', { granted: ['g2', 'g1'] });
    expect(granted?.assignedGroups).toEqual(['g1', 'g2']);
    expect(applyRecordUpdate(granted, 'hr', 'ada', { revoked: ['g1'] })?.assignedGroups).toEqual([
      'g2',
    ]);
  });

  it('forgets what it knew of another object when the account ID is linked anew', () => {
    const old = applyRecordUpdate(undefined, 'hr', 'ada', {
      link: { targetId: 'u1', linkedAt: at },
      granted: ['g1'],
      enabled: { value: false, at },
    });
    const relinked = applyRecordUpdate(old, 'hr', 'ada', {
      link: { targetId: 'u2', linkedAt: at },
    });
    expect(relinked).toEqual({
      connector: 'hr',
      accountId: 'ada',
      targetId: 'u2',
      linkedAt: at,
      assignedGroups: [],
    });
  });

  it('keeps no record without a link, and only the deleted object of a deleted account', () => {
    expect(applyRecordUpdate(undefined, 'hr', 'ada', { granted: ['g'] })).toBeUndefined();
    const linked = applyRecordUpdate(undefined, 'hr', 'ada', {
      link: { targetId: 'u', linkedAt: at },
      granted: ['g'],
    });
    const deleted = applyRecordUpdate(linked, 'hr', 'ada', { removed: { targetId: 'u', at } });
    expect(deleted).toEqual({
      connector: 'hr',
      accountId: 'ada',
      targetId: '',
      linkedAt: at,
      assignedGroups: [],
      deletedTargetIds: [{ id: 'u', at }],
    });
    expect(isLinked(deleted)).toBe(false);
    // A lagging replica may show the deleted object for a while: not the account then.
    const atMs = Date.parse(at);
    const u = { id: 'u', accountId: 'ada' };
    expect(wasDeleted(deleted, u, atMs + 60_000, 30_000)).toBe(true);
    // An hour on, an object a read shows is there (restored from deleted items, same id).
    expect(wasDeleted(deleted, u, atMs + 60 * 60_000, 30_000)).toBe(false);
    // Where reads show writes at once (SCIM), a read that shows it is never a lag.
    expect(wasDeleted(deleted, u, atMs + 1_000, 0)).toBe(false);
    expect(wasDeleted(deleted, { id: 'other', accountId: 'ada' }, atMs + 1_000, 30_000)).toBe(
      false,
    );
    // Granting on a deleted account's record links nothing and keeps what it remembers.
    expect(applyRecordUpdate(deleted, 'hr', 'ada', { granted: ['g'] })).toEqual(deleted);
  });
});

describe('wasDeleted', () => {
  const upn = 'ada@contoso.example';
  const atMs = Date.parse(at);
  // Graph's delete by name (revision 5) answers 204 with no object id: the record keeps the name.
  const byName = applyRecordUpdate(undefined, 'hr', upn, { removed: { targetId: upn, at } });
  const ghost = { id: 'old-object', accountId: 'Ada@Contoso.example' };

  it('takes any object of a name deleted by name for the deleted one, within the visibility window', () => {
    expect(wasDeleted(byName, ghost, atMs + 20_000, 30_000)).toBe(true);
    expect(wasDeleted(byName, { id: 'x', accountId: 'bob@contoso.example' }, atMs, 30_000)).toBe(
      false,
    );
    // Where reads show writes at once, never.
    expect(wasDeleted(byName, ghost, atMs + 1_000, 0)).toBe(false);
  });

  it('takes a user shown under the name after the window for one made again, not the deleted one', () => {
    expect(wasDeleted(byName, ghost, atMs + 30_000, 30_000)).toBe(false);
    expect(wasDeleted(byName, ghost, atMs + 5 * 60_000, 30_000)).toBe(false);
  });

  it('never takes the object the record links now (made by the service since) for the deleted one', () => {
    const relinked = applyRecordUpdate(byName, 'hr', upn, {
      link: { targetId: 'new-object', linkedAt: at, createdAt: at },
    });
    expect(relinked?.deletedTargetIds).toEqual([{ id: upn, at }]);
    expect(wasDeleted(relinked, { id: 'new-object', accountId: upn }, atMs + 1_000, 30_000)).toBe(
      false,
    );
    expect(wasDeleted(relinked, ghost, atMs + 1_000, 30_000)).toBe(true);
  });
});

describe('recentGroupWrite', () => {
  it("tells the service's own membership write while it may still be replicating, and forgets it after an hour", () => {
    const linked = applyRecordUpdate(undefined, 'hr', 'ada', {
      link: { targetId: 'u', linkedAt: at },
    });
    const written = applyRecordUpdate(linked, 'hr', 'ada', {
      granted: ['g1'],
      revoked: ['g2'],
      groupsAt: at,
    });
    const t = Date.parse(at);
    expect(recentGroupWrite(written, 'g1', t + 5_000, 30_000)).toBe(true);
    expect(recentGroupWrite(written, 'g2', t + 5_000, 30_000)).toBe(false);
    expect(recentGroupWrite(written, 'g1', t + 31_000, 30_000)).toBeUndefined();
    expect(recentGroupWrite(written, 'g3', t, 30_000)).toBeUndefined();
    const later = new Date(t + 2 * 60 * 60_000).toISOString();
    const pruned = applyRecordUpdate(written, 'hr', 'ada', { granted: ['g4'], groupsAt: later });
    expect(Object.keys(pruned?.groupWrites ?? {})).toEqual(['g4']);
  });
});
