import type { SerializedError } from './errors';
import type { GroupRef } from './group';
import type { GroupSelector } from './provisioning-request';
import { call, parallel, type IoResult, type Machine } from './step-machine';
import { STEP_OPS } from './step-ops';

/**
 * Resolves every named group: the role catalogue in one read, then the target for names the
 * catalogue does not know; all that cannot be found are named in one error. `lookedUp`: the
 * catalogue's answer for these selectors when the driver has it already (read with the
 * request's lease); it is judged exactly as the lookup's own answer.
 */
export function* resolveGroups(
  connector: string,
  selectors: readonly GroupSelector[],
  lookedUp?: IoResult<(GroupRef | null)[]>,
): Machine<{ groups: GroupRef[] } | { error: SerializedError }> {
  const known =
    lookedUp ?? (yield* call<(GroupRef | null)[]>(STEP_OPS.lookUpRoles, { connector, selectors }));
  if (!known.ok) return { error: known.error };
  const missing = selectors.filter((_, index) => known.value[index] === null);
  const results = yield* parallel<GroupRef>(
    STEP_OPS.resolveGroup,
    missing.map((selector) => ({ connector, selector })),
  );
  const failures = results.flatMap((result) => (result.ok ? [] : [result.error]));
  if (failures.length === 0) {
    const groups = [
      ...known.value.filter((group): group is GroupRef => group !== null),
      ...results.flatMap((result) => (result.ok ? [result.value] : [])),
    ];
    return { groups: [...new Map(groups.map((group) => [group.id, group])).values()] };
  }
  const [first] = failures as [SerializedError, ...SerializedError[]];
  if (failures.length === 1 || failures.some((failure) => failure.code !== first.code)) {
    return { error: first };
  }
  return {
    error: {
      ...first,
      message: failures.map((failure) => failure.message).join('; '),
      object: failures.map((failure) => failure.object ?? '').join(', '),
    },
  };
}
