import { quoteFilterValue } from './filter';

/** RFC 7644 §3.5.2: every PatchOp names its schema; some servers refuse it otherwise. */
export const PATCH_OP_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

export interface PatchOperation {
  op: 'add' | 'remove' | 'replace';
  path?: string;
  value?: unknown;
}

export interface PatchOpBody {
  schemas: [typeof PATCH_OP_SCHEMA];
  Operations: PatchOperation[];
}

/** Canonical writing (scim-interop.md): lowercase ops, `schemas` always present. */
export function patchOp(operations: PatchOperation[]): PatchOpBody {
  return { schemas: [PATCH_OP_SCHEMA], Operations: operations };
}

/** Spec: Lock / unlock: PATCH on `active`, a real boolean. */
export function activePatch(active: boolean): PatchOpBody {
  return patchOp([{ op: 'replace', path: 'active', value: active }]);
}

/** Spec: Set password: PATCH on `password`. */
export function passwordPatch(password: string): PatchOpBody {
  return patchOp([{ op: 'replace', path: 'password', value: password }]);
}

/** Spec: Add member: `add` on `members`; other members untouched (RFC 7644 §3.5.2.1). */
export function addMemberPatch(memberValue: string): PatchOpBody {
  return patchOp([{ op: 'add', path: 'members', value: [{ value: memberValue }] }]);
}

export type MemberRemoveStyle = 'pathFilter' | 'valueArray';

/**
 * Spec: Remove member. `pathFilter` is RFC 7644 §3.5.2.2's form `members[value eq "x"]`;
 * `valueArray` is Entra's form `path: members` with the values to remove.
 */
export function removeMemberPatch(memberValue: string, style: MemberRemoveStyle): PatchOpBody {
  return style === 'pathFilter'
    ? patchOp([{ op: 'remove', path: `members[value eq ${quoteFilterValue(memberValue)}]` }])
    : patchOp([{ op: 'remove', path: 'members', value: [{ value: memberValue }] }]);
}
