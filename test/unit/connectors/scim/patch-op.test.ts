import { describe, expect, it } from 'vitest';
import {
  PATCH_OP_SCHEMA,
  activePatch,
  addMemberPatch,
  passwordPatch,
  removeMemberPatch,
} from '../../../../src/connectors/scim/patch-op';

describe('PatchOp builders', () => {
  it('lock and unlock send a real boolean on active', () => {
    expect(activePatch(false)).toEqual({
      schemas: [PATCH_OP_SCHEMA],
      Operations: [{ op: 'replace', path: 'active', value: false }],
    });
    expect(activePatch(true).Operations[0]?.value).toBe(true);
  });

  it('set password replaces password', () => {
    expect(passwordPatch('pw-1234').Operations).toEqual([
      { op: 'replace', path: 'password', value: 'pw-1234' },
    ]);
  });

  it('add member adds one value to members, leaving the others', () => {
    expect(addMemberPatch('jdoe')).toEqual({
      schemas: [PATCH_OP_SCHEMA],
      Operations: [{ op: 'add', path: 'members', value: [{ value: 'jdoe' }] }],
    });
  });

  it.each([
    ['pathFilter', [{ op: 'remove', path: 'members[value eq "j\\"doe"]' }]],
    ['valueArray', [{ op: 'remove', path: 'members', value: [{ value: 'j"doe' }] }]],
  ] as const)('remove member in %s style', (style, operations) => {
    const body = removeMemberPatch('j"doe', style);
    expect(body.schemas).toEqual([PATCH_OP_SCHEMA]);
    expect(body.Operations).toEqual(operations);
  });

  it('writes every op in lowercase', () => {
    const ops = [activePatch(true), addMemberPatch('a'), removeMemberPatch('a', 'pathFilter')]
      .flatMap((body) => body.Operations)
      .map((operation) => operation.op);
    for (const op of ops) expect(op).toBe(op.toLowerCase());
  });
});
