import type { TargetAccount } from './account';
import type { EnabledEvidence } from './effective-change';
import type { SerializedError } from './errors';
import { LOST_WRITE_FOUND_WITHIN_MS } from './lost-writes';
import { describeReads, readBack } from './patient-io';
import { now, type Machine } from './step-machine';
import type { StepContext } from './step-context';

/** How long after a write no replica still shows the state before it: far beyond any lag seen. */
const SETTLED_AFTER_MS = LOST_WRITE_FOUND_WITHIN_MS;

/** What a lock or unlock knows of the state before it: evidence to weigh, or why there is none. */
export type EnabledBefore =
  | {
      evidence: EnabledEvidence;
      notices: string[];
      /** When a read showed the record's unconfirmed lock or unlock applied (ms). */
      unconfirmedShownAt?: number;
    }
  | { unknown: string }
  | { error: SerializedError };

/**
 * What is known of the account's enabled state before a lock or unlock that sets `target`:
 * the service's record of its last lock or unlock, and the read before (DESIGN invariant 9).
 * Where the record says the state is not known (an earlier lock or unlock whose answer was
 * lost, and that no read confirmed or refuted: `enabledUnconfirmed`), the record is no
 * evidence, and a read that does not show what that write asked for may be a replica from
 * before it: the account is read until a read shows it (the write was applied) or the
 * visibility window has passed, and the last read that shows the account decides. When no
 * read shows the account, the state before stays unknown (`unknown` says why).
 *
 * @example
 * const before = yield* enabledBefore(input, account, true);
 * if ('evidence' in before) enabledChangeIsEffective(before.evidence);
 */
export function* enabledBefore(
  input: StepContext,
  account: TargetAccount,
  target: boolean,
): Machine<EnabledBefore> {
  const { record, seen, seenAt } = input.handle;
  const window = input.capabilities.visibilityWindowMs;
  const at = yield* now();
  // A read without the state (a SCIM user without `active`) is no evidence of it.
  const read =
    seen && account.enabled !== undefined
      ? { value: account.enabled, atMs: seenAt ?? at }
      : undefined;
  const unconfirmed = record?.enabledUnconfirmed;
  if (unconfirmed === undefined || input.recordsUnconfirmed !== true) {
    return {
      evidence: {
        target,
        ...(record?.enabled === undefined || record.enabledAt === undefined
          ? {}
          : { recorded: { value: record.enabled, atMs: Date.parse(record.enabledAt) } }),
        ...(read === undefined ? {} : { seen: read }),
        visibilityWindowMs: window,
      },
      notices: [],
    };
  }
  const what = `the ${unconfirmed ? 'unlock' : 'lock'} of ${record?.enabledAt ?? 'an earlier request'}`;
  // A read that shows what the unconfirmed write asked for shows it applied; where reads show
  // writes at once, or an hour after it, any read shows the state.
  const since = Date.parse(record?.enabledAt ?? '');
  const longAfter = read !== undefined && read.atMs - since >= SETTLED_AFTER_MS;
  if (read !== undefined && (read.value === unconfirmed || window === 0 || longAfter)) {
    return {
      evidence: { target, seen: read, visibilityWindowMs: window },
      notices: [],
      ...(read.value === unconfirmed ? { unconfirmedShownAt: read.atMs } : {}),
    };
  }
  const back = yield* readBack(input, account, (shown) => shown?.enabled === unconfirmed);
  if ('error' in back) return { error: back.error };
  const readAt = yield* now();
  if (back.seen === null) {
    return {
      unknown:
        `the account's state before was not known (${what} was never confirmed or refuted), ` +
        `and no read showed the account after ${describeReads(back.reads, back.elapsedMs)}: ` +
        `could not tell whether this ${target ? 'unlock' : 'lock'} changed it`,
    };
  }
  if (back.seen.enabled === undefined) {
    return {
      unknown:
        `the account's state before was not known (${what} was never confirmed or refuted), ` +
        `and the account was read without its state: could not tell whether this ` +
        `${target ? 'unlock' : 'lock'} changed it`,
    };
  }
  // The record no longer says what the state was: this read settles it.
  return {
    evidence: {
      target,
      seen: { value: back.seen.enabled, atMs: readAt },
      visibilityWindowMs: window,
    },
    notices: [
      back.confirmed
        ? `${what}, whose answer was lost, is shown applied by a read before this write`
        : `${what}, whose answer was lost, is not shown applied after ${describeReads(back.reads, back.elapsedMs)}: taken as not applied`,
    ],
    ...(back.confirmed ? { unconfirmedShownAt: readAt } : {}),
  };
}
