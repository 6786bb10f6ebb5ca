import type { GroupRef } from '../../../src/domain/group';
import type { AccountRecord } from '../../../src/domain/account-record';
import type { AsyncIo, IoResult } from '../../../src/domain/step-machine';
import type { StepOp } from '../../../src/domain/step-ops';
import type { ConnectorCapabilities } from '../../../src/domain/capabilities';
import { newAccountHandle, type StepContext } from '../../../src/domain/step-context';

/** The parts of an operation's input the tests look at. */
export interface OpInput {
  add?: string[];
  remove?: string[];
  groupIds?: string[];
  confirmAbsent?: string[];
  enabled?: boolean;
  intentKey?: string;
  selectors?: ({ name: string } | { id: string })[];
}

/** One operation as a step machine asked for it, with the virtual time it asked. */
export interface IoCall {
  op: StepOp;
  input: OpInput;
  at: number;
}

type Answer = (input: OpInput, call: number) => unknown;

/**
 * Scripted answers for a step machine under test: each operation answers through a function
 * of its input and of how many times it was asked; time is virtual and moves only by the
 * machine's waits. An unscripted operation fails the test.
 */
export class ScriptedIo implements AsyncIo {
  readonly calls: IoCall[] = [];
  private time: number;
  private readonly counts = new Map<StepOp, number>();

  constructor(
    private readonly answers: Partial<Record<StepOp, Answer>>,
    start = Date.parse('2026-11-23T08:00:00Z'),
  ) {
    this.time = start;
  }

  async perform(op: StepOp, input: unknown): Promise<IoResult<unknown>> {
    const count = (this.counts.get(op) ?? 0) + 1;
    this.counts.set(op, count);
    this.calls.push({ op, input: input as OpInput, at: this.time });
    const answer = this.answers[op];
    if (answer === undefined) throw new Error(`unscripted operation ${op}`);
    const value = answer(input as OpInput, count);
    return isResult(value) ? value : { ok: true, value };
  }

  now(): number {
    return this.time;
  }

  async sleep(ms: number): Promise<void> {
    this.time += ms;
  }

  /** Lets time pass inside an operation (a call that waited long for a throttling target). */
  advance(ms: number): void {
    this.time += ms;
  }

  callsOf(op: StepOp): IoCall[] {
    return this.calls.filter((call) => call.op === op);
  }
}

function isResult(value: unknown): value is IoResult<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    'ok' in value &&
    typeof value.ok === 'boolean' &&
    ('value' in value || 'error' in value)
  );
}

/** An expected failure as an operation answers it. */
export function failure(code: string, message = code): IoResult<never> {
  return { ok: false, error: { code: code as never, message, retryable: false } };
}

export const LAGGING: ConnectorCapabilities = {
  visibilityWindowMs: 30_000,
  membershipReadScope: 'all',
  membershipWriteBatchSize: 20,
  membershipWritesSayIfInPlace: true,
};

export const CONSISTENT: ConnectorCapabilities = {
  visibilityWindowMs: 0,
  membershipReadScope: 'named',
  membershipWriteBatchSize: 1,
  membershipWritesSayIfInPlace: false,
};

export function stepContext(capabilities: ConnectorCapabilities = LAGGING): StepContext {
  return {
    requestId: 'req-1',
    step: 0,
    connector: 'entra',
    accountId: 'ada@contoso.example',
    capabilities,
    handle: newAccountHandle(),
  };
}

/** The account the step tests write to, and the virtual time they start at. */
export const ADA = { id: 'u-1', accountId: 'ada@contoso.example', enabled: true };
/** Two groups of the catalogue the service may write. */
export const SALES: GroupRef = { id: 'g-sales', displayName: 'Sales', writable: true };
export const OPS: GroupRef = { id: 'g-ops', displayName: 'Ops', writable: true };
export const START = Date.parse('2026-11-23T08:00:00Z');

/** The service's record of ADA, linked a minute before the tests start. */
export function linkedRecord(extra: Partial<AccountRecord> = {}): AccountRecord {
  return {
    connector: 'entra',
    accountId: ADA.accountId,
    targetId: ADA.id,
    linkedAt: new Date(START - 60_000).toISOString(),
    assignedGroups: [],
    ...extra,
  };
}
