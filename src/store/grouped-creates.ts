import type { TableClient, TableEntity } from '@azure/data-tables';
import { storageFailure, storageStatus } from './storage-failure';
import { submitTransaction, type TableAction } from './table-transaction';

/** Actions an entity group transaction holds at most (Table Storage's limit). */
const MAX_ACTIONS = 100;

/** One caller's rows, created together or not at all, and how to answer it. */
interface Waiting {
  rows: readonly TableEntity[];
  resolve(): void;
  reject(error: unknown): void;
}

/** How a {@link GroupedCreates} reaches its table and writes one caller's rows alone. */
export interface GroupedCreatesOptions {
  client(): Promise<TableClient>;
  /**
   * Writes one caller's rows without the others, as a caller writing alone does (the
   * fallback when a shared transaction is refused): it decides what an existing row means.
   */
  alone(rows: readonly TableEntity[]): Promise<void>;
  /** The operation, for errors ("index the request"). */
  operation: string;
}

/**
 * Creates the rows of many callers in one partition in as few entity group transactions as
 * the partition allows (up to 100 actions each), without a wait of its own: the rows of the
 * callers that arrive in the same turn of the event loop, or while the previous transaction
 * is in flight, go in the next one (a group commit). Each caller's rows are created in their
 * order, next to each other, all or none.
 *
 * A transaction is all-or-nothing, so one caller's refusal would refuse the others': a
 * transaction the table refuses (4xx: a row exists, a row is invalid, the body too large)
 * wrote nothing, and is written again without the caller its answer names (Table Storage
 * prefixes the message with the failed action's index), that caller alone by
 * {@link GroupedCreatesOptions.alone}; when the answer names none, in two halves. A failure
 * that may have written the rows (a lost answer, 408, 429, 5xx, after the client's own
 * retries) fails every caller in it, as it would have failed each writing alone. A
 * transaction whose answer was lost and which the client's pipeline sent again is refused
 * with 409 (its rows exist): each caller then goes alone, where a row that exists is kept.
 *
 * @example
 * const creates = new GroupedCreates({ client, alone: (rows) => addAlone(rows), operation: 'index the request' });
 * await Promise.all([creates.add(rowsOfOne), creates.add(rowsOfAnother)]); // one $batch
 */
export class GroupedCreates {
  private waiting: Waiting[] = [];
  private scheduled = false;
  private writing = false;

  constructor(private readonly options: GroupedCreatesOptions) {}

  /** Creates the rows (at most 100, one partition) with those of other callers near in time. */
  add(rows: readonly TableEntity[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ rows, resolve, reject });
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

  /** Writes a group; settles each of its callers; never throws. */
  private async write(group: readonly Waiting[]): Promise<void> {
    const [only] = group;
    if (group.length === 1 && only !== undefined) {
      await settle(only, () => this.options.alone(only.rows));
      return;
    }
    try {
      const client = await this.options.client();
      await submitTransaction(
        client,
        group.flatMap((waiting) => waiting.rows.map((row): TableAction => ['create', row])),
      );
      for (const waiting of group) waiting.resolve();
      return;
    } catch (error) {
      if (!isRefusal(error)) {
        const failure = storageFailure(this.options.operation, error);
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
        settle(refused, () => this.options.alone(refused.rows)),
        this.write(group.filter((waiting) => waiting !== refused)),
      ]);
    }
  }
}

/** The callers in groups of whole callers, each group within a transaction's limit, in order. */
function groupsOf(callers: readonly Waiting[]): Waiting[][] {
  const groups: Waiting[][] = [];
  let current: Waiting[] = [];
  let actions = 0;
  for (const waiting of callers) {
    if (current.length > 0 && actions + waiting.rows.length > MAX_ACTIONS) {
      groups.push(current);
      current = [];
      actions = 0;
    }
    current.push(waiting);
    actions += waiting.rows.length;
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
    if (remaining < waiting.rows.length) return waiting;
    remaining -= waiting.rows.length;
  }
  return undefined;
}

async function settle(waiting: Waiting, write: () => Promise<void>): Promise<void> {
  try {
    await write();
    waiting.resolve();
  } catch (error) {
    waiting.reject(error);
  }
}
