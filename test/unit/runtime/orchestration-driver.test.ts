import type { InvocationContext } from '@azure/functions';
import type { OrchestrationHandler } from 'durable-functions';
import { describe, expect, it } from 'vitest';
import { ProvisioningError } from '../../../src/domain/errors';
import type { Logger } from '../../../src/domain/logger';
import { HISTORY_EVENT } from '../../../src/runtime/local-host/history-events';
import { VirtualClock } from '../../../src/runtime/local-host/virtual-clock';
import { START, WAIT_MS, count, useDrivers } from './driver-test-kit';

const driverWith = useDrivers();

describe('OrchestrationDriver: activities', () => {
  it('runs sequential activities with fresh contexts, routes their logs and replays deterministically', async () => {
    const greeting: OrchestrationHandler = function* (context) {
      const { name } = context.df.getInput<{ name: string }>();
      const greeted = (yield context.df.callActivity('greet', name)) as string;
      return (yield context.df.callActivity('shout', greeted)) as string;
    };
    const contexts: InvocationContext[] = [];
    const lines: string[] = [];
    const logger: Logger = {
      debug: () => undefined,
      info: (message, properties) => lines.push(`${String(properties?.functionName)}: ${message}`),
      warn: () => undefined,
      error: () => undefined,
    };
    const driver = driverWith({
      orchestrators: { greeting },
      activities: {
        greet: async (input, context) => {
          contexts.push(context);
          context.log('greeting', String(input));
          return `hello ${String(input)}`;
        },
        shout: async (input, context) => {
          contexts.push(context);
          return String(input).toUpperCase();
        },
      },
      logger,
    });

    expect(await driver.startNew('greeting', 'seq-1', { name: 'Ada' })).toBe('started');
    const state = await driver.waitFor('seq-1', WAIT_MS);

    expect(state).toMatchObject({
      instanceId: 'seq-1',
      name: 'greeting',
      runtimeStatus: 'Completed',
      input: { name: 'Ada' },
      output: 'HELLO ADA',
    });
    expect(contexts.map((context) => context.functionName)).toEqual(['greet', 'shout']);
    expect(contexts[0]?.invocationId).not.toBe(contexts[1]?.invocationId);
    expect(lines).toContain('greet: greeting Ada');
    const history = driver.history('seq-1');
    expect(history[0]?.EventType).toBe(HISTORY_EVENT.OrchestratorStarted);
    expect(history[1]?.EventType).toBe(HISTORY_EVENT.ExecutionStarted);
    expect(count(history, HISTORY_EVENT.TaskCompleted)).toBe(2);
    await expect(driver.verifyReplay('seq-1')).resolves.toBeUndefined();
  });

  it('fans out with Task.all within the concurrency limit and returns results in order', async () => {
    const fanOut: OrchestrationHandler = function* (context) {
      const items = context.df.getInput<number[]>();
      // Task.all([]) throws in durable-functions (platform-notes.md): guard empty fan-outs.
      if (items.length === 0) return [];
      const tasks = items.map((item) => context.df.callActivity('square', item));
      return (yield context.df.Task.all(tasks)) as number[];
    };
    const unguarded: OrchestrationHandler = function* (context) {
      return (yield context.df.Task.all([])) as unknown[];
    };
    let running = 0;
    let peak = 0;
    const driver = driverWith({
      orchestrators: { fanOut, unguarded },
      activities: {
        square: async (input) => {
          running += 1;
          peak = Math.max(peak, running);
          await new Promise((resolve) => setTimeout(resolve, 5 * Number(input)));
          running -= 1;
          return Number(input) ** 2;
        },
      },
      maxConcurrentActivities: 2,
    });

    await driver.startNew('fanOut', 'fan-1', [3, 1, 2, 4]);
    await driver.startNew('fanOut', 'fan-empty', []);
    await driver.startNew('unguarded', 'fan-unguarded', undefined);

    expect((await driver.waitFor('fan-1', WAIT_MS)).output).toEqual([9, 1, 4, 16]);
    expect(peak).toBe(2);
    expect((await driver.waitFor('fan-empty', WAIT_MS)).output).toEqual([]);
    const failed = await driver.waitFor('fan-unguarded', WAIT_MS);
    expect(failed.runtimeStatus).toBe('Failed');
    expect(failed.output).toContain('you must specify at least one Task');
    await expect(driver.verifyReplay('fan-1')).resolves.toBeUndefined();
  });

  it('hands a thrown activity error to the orchestrator as a plain Error: message kept, code lost', async () => {
    const catching: OrchestrationHandler = function* (context) {
      try {
        yield context.df.callActivity('explode', null);
        return 'not reached';
      } catch (error) {
        return {
          plainError: error instanceof Error && !(error instanceof ProvisioningError),
          message: error instanceof Error ? error.message : '',
          code: (error as { code?: unknown }).code ?? null,
        };
      }
    };
    const driver = driverWith({
      orchestrators: { catching },
      activities: {
        explode: async () => {
          throw new ProvisioningError('TARGET_UNAVAILABLE', 'target answered 503', {
            retryable: true,
          });
        },
      },
    });

    await driver.startNew('catching', 'throw-1', null);
    const output = (await driver.waitFor('throw-1', WAIT_MS)).output as Record<string, unknown>;

    expect(output.plainError).toBe(true);
    expect(output.code).toBeNull();
    expect(output.message).toMatch(/^Activity function 'explode' failed: target answered 503 \n /);
    const failed = driver
      .history('throw-1')
      .find((event) => event.EventType === HISTORY_EVENT.TaskFailed);
    expect(failed).toMatchObject({
      Reason: "Activity function 'explode' failed: target answered 503",
    });
  });

  it('passes a failure returned as data through unchanged', async () => {
    const asData: OrchestrationHandler = function* (context) {
      const result = (yield context.df.callActivity('lookup', 'ghost')) as {
        ok: boolean;
        error?: { code: string };
      };
      return result.ok ? 'found' : `failed with ${result.error?.code}`;
    };
    const driver = driverWith({
      orchestrators: { asData },
      activities: {
        lookup: async (input) => ({
          ok: false,
          error: { code: 'ACCOUNT_NOT_FOUND', message: `account "${String(input)}" not found` },
        }),
      },
    });

    await driver.startNew('asData', 'data-1', null);
    const state = await driver.waitFor('data-1', WAIT_MS);

    expect(state.runtimeStatus).toBe('Completed');
    expect(state.output).toBe('failed with ACCOUNT_NOT_FOUND');
  });
});

describe('OrchestrationDriver: instances', () => {
  it('fails an instance whose orchestrator throws, with the message as output', async () => {
    const throwing: OrchestrationHandler = function* (context) {
      yield context.df.callActivity('noop', null);
      throw new Error('plan rejected: group "Sales" is not managed');
    };
    const driver = driverWith({
      orchestrators: { throwing },
      activities: { noop: async () => null },
    });

    await driver.startNew('throwing', 'fail-1', null);
    const state = await driver.waitFor('fail-1', WAIT_MS);

    expect(state.runtimeStatus).toBe('Failed');
    expect(state.output).toBe(
      `Orchestrator function 'throwing' failed: plan rejected: group "Sales" is not managed`,
    );
    await expect(driver.verifyReplay('fail-1')).resolves.toBeUndefined();
  });

  it('fails an instance that calls an activity nobody registered, as the host does', async () => {
    const misnamed: OrchestrationHandler = function* (context) {
      return (yield context.df.callActivity('doesNotExist', null)) as unknown;
    };
    const driver = driverWith({ orchestrators: { misnamed }, activities: {} });

    await driver.startNew('misnamed', 'missing-1', null);
    const state = await driver.waitFor('missing-1', WAIT_MS);

    expect(state.runtimeStatus).toBe('Failed');
    expect(state.output).toContain("The function 'doesNotExist' doesn't exist");
  });

  it('shows the custom status while the instance runs', async () => {
    let release: () => void = () => undefined;
    let entered: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const gateEntered = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const staged: OrchestrationHandler = function* (context) {
      context.df.setCustomStatus({ stage: 'waiting for approval' });
      yield context.df.callActivity('waitForGate', null);
      context.df.setCustomStatus({ stage: 'done' });
      return 'approved';
    };
    const driver = driverWith({
      orchestrators: { staged },
      activities: {
        waitForGate: async () => {
          entered();
          await gate;
          return true;
        },
      },
    });

    await driver.startNew('staged', 'status-1', null);
    expect((await driver.getStatus('status-1'))?.runtimeStatus).toBe('Pending');
    await gateEntered;
    expect(await driver.getStatus('status-1')).toMatchObject({
      runtimeStatus: 'Running',
      customStatus: { stage: 'waiting for approval' },
    });
    release();

    expect(await driver.waitFor('status-1', WAIT_MS)).toMatchObject({
      runtimeStatus: 'Completed',
      customStatus: { stage: 'done' },
      output: 'approved',
    });
  });

  it('answers each status query with a state of its own: changing one changes nothing the driver keeps', async () => {
    const marked: OrchestrationHandler = function* (context) {
      context.df.setCustomStatus({ stage: 'started' });
      const done = (yield context.df.callActivity('work', null)) as boolean;
      context.df.setCustomStatus({
        stage: 'done',
        marks: [1, 2],
        at: context.df.currentUtcDateTime,
      });
      return { done };
    };
    const driver = driverWith({
      orchestrators: { marked },
      activities: { work: async () => true },
    });

    await driver.startNew('marked', 'own-1', { account: { accountId: 'ada' } });
    const first = await driver.waitFor('own-1', WAIT_MS);
    (first.input as { account: { accountId: string } }).account.accountId = 'changed';
    (first.customStatus as { marks: number[] }).marks.push(3);
    (first.output as { done: boolean }).done = false;

    const again = await driver.getStatus('own-1');
    expect(again).toMatchObject({
      input: { account: { accountId: 'ada' } },
      customStatus: { stage: 'done', marks: [1, 2] },
      output: { done: true },
    });
    // As the task hub keeps it: JSON text, so a Date reads back as its ISO string.
    expect(typeof (again?.customStatus as { at: unknown }).at).toBe('string');
  });

  it('starts an instance id once: a second start answers exists and runs nothing', async () => {
    let runs = 0;
    const once: OrchestrationHandler = function* (context) {
      return (yield context.df.callActivity('count', context.df.getInput())) as number;
    };
    const driver = driverWith({
      orchestrators: { once },
      activities: {
        count: async () => {
          runs += 1;
          return runs;
        },
      },
    });

    const [first, second] = await Promise.all([
      driver.startNew('once', 'req-1', 'a'),
      driver.startNew('once', 'req-1', 'b'),
    ]);
    await driver.waitFor('req-1', WAIT_MS);
    const third = await driver.startNew('once', 'req-1', 'c');

    expect([first, second, third]).toEqual(['started', 'exists', 'exists']);
    expect(runs).toBe(1);
    expect((await driver.getStatus('req-1'))?.input).toBe('a');
  });

  it('whenStarted resolves once an instance with the id is started, and rejects when the driver closes first', async () => {
    const echo: OrchestrationHandler = function* (context) {
      return (yield context.df.callActivity('echo', context.df.getInput())) as string;
    };
    const driver = driverWith({
      orchestrators: { echo },
      activities: { echo: async (input) => input },
    });
    const order: string[] = [];
    const started = driver.whenStarted('req-1').then(() => {
      order.push('started');
      return driver.getStatus('req-1');
    });
    const never = driver.whenStarted('req-never');
    never.catch(() => undefined);
    await new Promise<void>((resolve) => setImmediate(resolve));
    order.push('startNew');
    await driver.startNew('echo', 'req-1', 'a');

    expect((await started)?.input).toBe('a');
    expect(order).toEqual(['startNew', 'started']);
    expect((await driver.waitFor('req-1', WAIT_MS)).output).toBe('a');
    // An instance that exists (ended, too) answers at once.
    await expect(driver.whenStarted('req-1')).resolves.toBeUndefined();
    await driver.close();
    await expect(never).rejects.toThrow('the driver closed before "req-never" started');
    await expect(driver.whenStarted('req-later')).rejects.toThrow(ProvisioningError);
  });

  it('round-trips the input through JSON and refuses unknown orchestrators', async () => {
    const echo: OrchestrationHandler = function* (context) {
      yield context.df.createTimer(context.df.currentUtcDateTime);
      return context.df.getInput<unknown>();
    };
    const driver = driverWith({
      orchestrators: { echo },
      activities: {},
      clock: new VirtualClock(START),
    });

    await driver.startNew('echo', 'json-1', { at: new Date(START), dropped: undefined, n: 1 });

    expect((await driver.waitFor('json-1', WAIT_MS)).output).toEqual({
      at: new Date(START).toISOString(),
      n: 1,
    });
    await expect(driver.startNew('nope', 'json-2', null)).rejects.toThrow(/not registered/);
    expect(await driver.getStatus('json-2')).toBeUndefined();
  });

  it('keeps inputs, results and custom status inspectable in its snapshot', async () => {
    const keeper: OrchestrationHandler = function* (context) {
      context.df.setCustomStatus({ marker: 'status-marker' });
      return (yield context.df.callActivity('fetch', 'input-marker')) as string;
    };
    const driver = driverWith({
      orchestrators: { keeper },
      activities: { fetch: async () => 'result-marker' },
    });

    await driver.startNew('keeper', 'snap-1', { marker: 'start-marker' });
    await driver.waitFor('snap-1', WAIT_MS);
    const text = JSON.stringify(driver.snapshot());

    for (const marker of ['start-marker', 'input-marker', 'result-marker', 'status-marker']) {
      expect(text).toContain(marker);
    }
  });
});
