import type { TableClient } from '@azure/data-tables';
import { storageFailure, storageStatus } from './storage-failure';
import { submitTransaction, type TableAction } from './table-transaction';

/** Actions an entity group transaction holds at most (Table Storage's limit). */
const MAX_ACTIONS = 100;

/** One caller's actions, written together or not at all, and how to answer it. */
interface Waiting {
  actions: readonly TableAction[];
  /** Its rows' keys: two callers writing one row never share a transaction. */
  keys: readonly string[];
  /** Its answer when a shared transaction wrote its actions. */
  written(): void;
  /** Writes its actions without the others, and answers it. */
  alone(): Promise<void>;
  reject(error: unknown): void;
}

/**
 * Writes the actions of many callers in one partition in as few entity group transactions
 * as the partition allows (up to 100 actions each), without a wait of its own: the actions
 * of the callers that arrive in the same turn of the event loop, or while the previous
 * transaction is in flight, go in the next one (a group commit). Each caller's actions are
 * written in their order, next to each other, all or none.
 *
 * A transaction is all-or-nothing, so one caller's refusal would refuse the others': a
 * transaction the table refuses (4xx: a row exists, a row is invalid, the body too large)
 * wrote nothing, and is written again without the caller its answer names (Table Storage
 * prefixes the message with the failed action's index), that caller alone, as it writes
 * when it writes alone (where it decides what an existing row means); when the answer
 * names none, in two halves. A failure that may have written the actions (a lost answer,
 * 408, 429, 5xx, after the client's own retries) fails every caller in it, as it would have
 * failed each writing alone. A transaction whose answer was lost and which the client's
 * pipeline sent again is refused with 409 (its rows exist): each caller then goes alone.
 *
 * @example
 * const together = new GroupedTransactions(() => table.client(), 'index the request');
 * await Promise.all([
 *   together.submit(actionsOfOne, undefined, () => writeAlone(actionsOfOne)),
 *   together.submit(actionsOfAnother, undefined, () => writeAlone(actionsOfAnother)),
 * ]); // one $batch
 */
export class GroupedTransactions {
  private waiting: Waiting[] = [];
  private scheduled = false;
  private writing = false;

  /** `operation` names the writes in errors ("index the request"). */
  constructor(
    private readonly client: () => Promise<TableClient>,
    private readonly operation: string,
  ) {}

  /**
   * Writes `actions` (at most 100, one partition) with those of other callers near in time:
   * answers `written` when a shared transaction wrote them, else what `alone` answers.
   */
  submit<T>(actions: readonly TableAction[], written: T, alone: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({
        actions,
        keys: actions.map(([, entity]) => entity.rowKey),
        written: () => resolve(written),
        alone: () => alone().then(resolve, reject),
        reject,
      });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.writing) return;
    this.scheduled = true;
    // After the callbacks of this turn: callers woken by the same answers join the group.
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.writing = true;
    try {
      while (this.waiting.length > 0) {
        const taken = this.waiting;
        this.waiting = [];
        await Promise.all(groupsOf(taken).map((group) => this.write(group)));
      }
    } finally {
      this.writing = false;
    }
  }

  /** Writes a group and answers each of its callers; never throws. */
  private async write(group: readonly Waiting[]): Promise<void> {
    const [only] = group;
    if (group.length === 1 && only !== undefined) {
      await only.alone();
      return;
    }
    try {
      await submitTransaction(
        await this.client(),
        group.flatMap((waiting) => waiting.actions),
      );
      for (const waiting of group) waiting.written();
      return;
    } catch (error) {
      if (!isRefusal(error)) {
        const failure = storageFailure(this.operation, error);
        for (const waiting of group) waiting.reject(failure);
        return;
      }
      const refused = refusedCaller(group, error);
      if (refused === undefined) {
        const half = Math.ceil(group.length / 2);
        await Promise.all([this.write(group.slice(0, half)), this.write(group.slice(half))]);
        return;
      }
      await Promise.all([
        refused.alone(),
        this.write(group.filter((waiting) => waiting !== refused)),
      ]);
    }
  }
}

/**
 * The callers in groups of whole callers, in order, each group within a transaction's limit
 * and writing each row once (a transaction may not name a row twice).
 */
function groupsOf(callers: readonly Waiting[]): Waiting[][] {
  const groups: Waiting[][] = [];
  let current: Waiting[] = [];
  let keys = new Set<string>();
  let actions = 0;
  for (const waiting of callers) {
    const fits =
      actions + waiting.actions.length <= MAX_ACTIONS && !waiting.keys.some((k) => keys.has(k));
    if (current.length > 0 && !fits) {
      groups.push(current);
      current = [];
      keys = new Set();
      actions = 0;
    }
    current.push(waiting);
    for (const key of waiting.keys) keys.add(key);
    actions += waiting.actions.length;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

/** A transaction the table refused as a whole (nothing written), not one that may have run. */
function isRefusal(error: unknown): boolean {
  const status = storageStatus(error);
  return status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 429;
}

/**
 * The caller whose action the refusal names: Table Storage (and Azurite) begin the error's
 * message with the failed action's index (`1:The specified entity already exists.`).
 */
function refusedCaller(group: readonly Waiting[], error: unknown): Waiting | undefined {
  const message = (error as { message?: unknown }).message;
  const index = typeof message === 'string' ? /^(\d+):/.exec(message)?.[1] : undefined;
  if (index === undefined) return undefined;
  let remaining = Number(index);
  for (const waiting of group) {
    if (remaining < waiting.actions.length) return waiting;
    remaining -= waiting.actions.length;
  }
  return undefined;
}
