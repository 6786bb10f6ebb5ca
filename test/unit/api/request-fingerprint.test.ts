import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  legacyRequestFingerprint,
  requestFingerprint,
  storedRequestFingerprint,
  type FingerprintedRequest,
} from '../../../src/api/request-fingerprint';
import type { ProvisioningRequest } from '../../../src/domain/provisioning-request';

const base: FingerprintedRequest = {
  requestId: 'r1',
  connector: 'hr',
  context: { requestedBy: 'ada', reason: 'joiner' },
  account: { accountId: 'jane', attributes: { a: 'x', b: 'y' } },
  actions: [{ type: 'create' }, { type: 'grant', groups: [{ name: 'Sales' }, { id: 'g-2' }] }],
  hasPassword: false,
};

describe('requestFingerprint', () => {
  it('is the same for attributes in another order and the groups of an action in another order', () => {
    expect(
      requestFingerprint({
        ...base,
        account: { attributes: { b: 'y', a: 'x' }, accountId: 'jane' },
        actions: [
          { type: 'create' },
          { type: 'grant', groups: [{ id: 'g-2' }, { name: 'Sales' }] },
        ],
        context: { reason: 'joiner', requestedBy: 'ada' },
      }),
    ).toBe(requestFingerprint(base));
  });

  it('differs for another meaning: a value, a group, the order of actions, a password', () => {
    const fingerprint = requestFingerprint(base);
    const others: FingerprintedRequest[] = [
      { ...base, account: { accountId: 'jane', attributes: { a: 'x', b: 'z' } } },
      { ...base, account: { accountId: 'jane', attributes: { a: 'x', b: 1 } } },
      { ...base, actions: [{ type: 'create' }, { type: 'grant', groups: [{ name: 'Support' }] }] },
      { ...base, actions: [{ type: 'create' }, { type: 'revoke', groups: [{ name: 'Sales' }] }] },
      { ...base, actions: [{ type: 'lock' }, { type: 'unlock' }] },
      { ...base, actions: [{ type: 'unlock' }, { type: 'lock' }] },
      { ...base, hasPassword: true },
      { ...base, context: { requestedBy: 'bob', reason: 'joiner' } },
      { ...base, requestId: 'r2' },
    ];
    const prints = others.map(requestFingerprint);
    expect(prints).not.toContain(fingerprint);
    expect(new Set(prints).size).toBe(prints.length);
  });

  it('leaves who submitted the request out: the same request sent by another caller is the same', () => {
    expect(
      requestFingerprint({ ...base, context: { ...base.context, submittedBy: 'bob' } as never }),
    ).toBe(requestFingerprint(base));
  });

  it('is what a stored input gives, whatever fingerprint the input was stored with', () => {
    const input = {
      requestId: 'r1',
      connector: 'hr',
      requestedBy: 'ada',
      reason: 'joiner',
      submittedBy: 'function key',
      account: base.account,
      actions: base.actions,
      fingerprint: 'an older one',
      capabilities: {},
      source: 'http',
      receivedAt: '2026-11-23T08:00:00.000Z',
    } as unknown as ProvisioningRequest;
    expect(storedRequestFingerprint(input)).toBe(requestFingerprint(base));
    expect(storedRequestFingerprint({ ...input, passwordSecret: 'request-password-1' })).toBe(
      requestFingerprint({ ...base, hasPassword: true }),
    );
  });
});

describe('legacyRequestFingerprint', () => {
  it('is the hash requests were stored under before: of the body as the caller spelled it', () => {
    const rest = {
      connector: 'scim-sandbox',
      account: { accountId: 'upgrade.scim', displayName: 'Upgrade Test' },
      actions: [{ type: 'create' }, { type: 'grant', groups: ['Engineering', 'Sales', 'Finance'] }],
    };
    // The fingerprint of test/support/histories/scim-sandbox-create-grant.json, recorded then.
    expect(legacyRequestFingerprint(rest, 'upgrade-scim-sandbox', false)).toBe(
      'b345339885a2e5d2b6699771a91742959385efee461ffbe68ab870d78140c0b1',
    );
    expect(legacyRequestFingerprint(rest, 'upgrade-scim-sandbox', false)).toBe(
      createHash('sha256')
        .update(JSON.stringify({ ...rest, requestId: 'upgrade-scim-sandbox', password: false }))
        .digest('hex'),
    );
  });
});
