import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as df from 'durable-functions';
import type { OrchestrationHandler } from 'durable-functions';
import { afterAll, describe, expect, it } from 'vitest';
import { startAzurite, type LocalAzurite } from '../../../src/runtime/local-host/azurite';
import { HISTORY_EVENT } from '../../../src/runtime/local-host/history-events';
import type { HistoryStore } from '../../../src/runtime/local-host/history-store';
import { OrchestrationDriver } from '../../../src/runtime/local-host/orchestration-driver';
import { TableHistoryStore } from '../../../src/runtime/local-host/table-history-store';
import { resumeInstance } from '../../../src/runtime/local-host/resumed-instance';
import {
  ScaledClock,
  VirtualClock,
  type DriverClock,
} from '../../../src/runtime/local-host/virtual-clock';
import { tableClient } from '../../../src/store/storage-clients';

const START = Date.parse('2026-03-01T08:00:00.000Z');
const folders: string[] = [];

afterAll(async () => {
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

async function folder(): Promise<string> {
  const path = await mkdtemp(join(tmpdir(), 'driver-restart-'));
  folders.push(path);
  return path;
}

/** The folder as it is on disk now, as a kill -9 of the process would leave it. */
async function crashCopy(location: string): Promise<string> {
  const copy = await folder();
  await cp(location, copy, { recursive: true });
  return copy;
}

/** Each activity call by name and input, in both processes: side effects happen at least once. */
const calls: string[] = [];
let gateOpen = false;
const gateWaiters: (() => void)[] = [];

const journey: OrchestrationHandler = function* (context) {
  const name = context.df.getInput<string>();
  const one = (yield context.df.callActivity('step', `${name}:one`)) as string;
  yield context.df.createTimer(new Date(context.df.currentUtcDateTime.getTime() + 10_000));
  const retry = new df.RetryOptions(5_000, 3);
  const flaky = (yield context.df.callActivityWithRetry('flaky', retry, name)) as string;
  const lost = context.df.createTimer(
    new Date(context.df.currentUtcDateTime.getTime() + 3_600_000),
  );
  const race = context.df.callActivity('step', `${name}:race`);
  const winner = yield context.df.Task.any([lost, race]);
  if (winner !== race) throw new Error('the hour-long timer won');
  lost.cancel();
  const two = (yield context.df.callActivity('gate', `${name}:two`)) as string;
  return [one, flaky, race.result, two];
};

const sleeper: OrchestrationHandler = function* (context) {
  yield context.df.createTimer(new Date(context.df.currentUtcDateTime.getTime() + 600_000));
  return (yield context.df.callActivity('step', 'after the nap')) as string;
};

const flakyFailures = new Set<string>();
const activities = {
  step: async (input: unknown) => {
    calls.push(`step ${String(input)}`);
    return `did ${String(input)}`;
  },
  flaky: async (input: unknown) => {
    calls.push(`flaky ${String(input)}`);
    if (!flakyFailures.has(String(input))) {
      flakyFailures.add(String(input));
      throw new Error('first attempt fails');
    }
    return `flaky ${String(input)} done`;
  },
  gate: async (input: unknown) => {
    calls.push(`gate ${String(input)}`);
    if (!gateOpen) await new Promise<void>((resolve) => gateWaiters.push(resolve));
    return `passed ${String(input)}`;
  },
};

function historyStore(azurite: LocalAzurite): TableHistoryStore {
  const storage = { kind: 'connectionString' as const, connectionString: azurite.connectionString };
  return new TableHistoryStore(tableClient(storage, 'LocalHostOrchestrations'), () =>
    azurite.flush(),
  );
}

async function driverOn(
  azurite: LocalAzurite,
  clock: DriverClock,
  autoAdvance = true,
): Promise<OrchestrationDriver> {
  return new OrchestrationDriver({
    orchestrators: { journey, sleeper },
    activities,
    clock,
    autoAdvance,
    history: historyStore(azurite),
  });
}

async function until(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('OrchestrationDriver with a history store: a restart resumes every instance', () => {
  it('resumes instances killed in an activity from their history: saved completions are not run again, the lost one is, canceled timers stay canceled', async () => {
    const location = await folder();
    const first = await startAzurite({ location });
    // Real time sped up: timers fire while other instances' activities run.
    const clockA = new ScaledClock(1_000, START);
    const driverA = await driverOn(first, clockA);
    const names = ['ada', 'bob', 'cyd'];
    for (const name of names) expect(await driverA.startNew('journey', name, name)).toBe('started');
    await until('every journey at its gate', () => gateWaiters.length === names.length);
    // Saves are written after the episode: wait until the gate's start is among them.
    for (let saved = false; !saved;) {
      const instances = await historyStore(first).load();
      saved = instances.every((instance) =>
        instance.history.some((e) => 'Name' in e && e.Name === 'gate'),
      );
    }
    await first.flush();
    const disk = await crashCopy(location);

    // The second process: what the disk kept, and nothing else.
    gateOpen = true;
    const second = await startAzurite({ location: disk });
    // What each waits for: the gate's lost completion only, not the canceled hour-long timer.
    for (const saved of await historyStore(second).load()) {
      expect(resumeInstance(saved).work).toEqual([
        {
          kind: 'activity',
          eventId: expect.any(Number),
          name: 'gate',
          input: `"${saved.instanceId}:two"`,
        },
      ]);
    }
    const driverB = await driverOn(second, new ScaledClock(1_000, clockA.now()));
    expect(await driverB.restore()).toEqual({ instances: 3, resumed: 3 });
    for (const name of names) {
      const state = await driverB.waitFor(name, 20_000);
      expect(state).toMatchObject({
        runtimeStatus: 'Completed',
        output: [`did ${name}:one`, `flaky ${name} done`, `did ${name}:race`, `passed ${name}:two`],
      });
      await driverB.verifyReplay(name);
      const history = driverB.history(name);
      // The hour-long timer was canceled before the crash and never fired after it.
      expect(history.filter((e) => e.EventType === HISTORY_EVENT.TimerFired)).toHaveLength(2);
      // Only the activity whose completion was lost ran twice: once in each process.
      expect(calls.filter((call) => call.includes(`${name}:`))).toEqual([
        `step ${name}:one`,
        `step ${name}:race`,
        `gate ${name}:two`,
        `gate ${name}:two`,
      ]);
      expect(calls.filter((call) => call === `flaky ${name}`)).toHaveLength(2);
    }

    for (const resolve of gateWaiters.splice(0)) resolve();
    await Promise.all([driverA.close(), driverB.close()]);
    await Promise.all([first.close(), second.close()]);
  });

  it('keeps a started instance without any flush by the caller, and fires the timer it waited on', async () => {
    const location = await folder();
    const first = await startAzurite({ location });
    const clockA = new VirtualClock(START);
    const driverA = await driverOn(first, clockA, false);
    expect(await driverA.startNew('sleeper', 'nap-1', null)).toBe('started');
    const justStarted = await crashCopy(location);
    await driverA.idle();
    await first.flush();
    const napping = await crashCopy(location);

    for (const disk of [justStarted, napping]) {
      const azurite = await startAzurite({ location: disk });
      const driver = await driverOn(azurite, new VirtualClock(START + 1_000));
      expect(await driver.restore()).toEqual({ instances: 1, resumed: 1 });
      expect(await driver.waitFor('nap-1', 20_000)).toMatchObject({
        runtimeStatus: 'Completed',
        output: 'did after the nap',
      });
      expect(await driver.startNew('sleeper', 'nap-1', null)).toBe('exists');
      await driver.close();
      await azurite.close();
    }
    expect(calls.filter((call) => call === 'step after the nap')).toHaveLength(2);
    await driverA.close();
    await first.close();
  });

  it('answers for finished instances after a clean stop, and does not run them again', async () => {
    const location = await folder();
    gateOpen = true;
    let azurite = await startAzurite({ location });
    let driver = await driverOn(azurite, new VirtualClock(START));
    await driver.startNew('sleeper', 'done-1', null);
    const finished = await driver.waitFor('done-1', 20_000);
    await driver.close();
    await azurite.close();
    const before = calls.length;

    azurite = await startAzurite({ location });
    driver = await driverOn(azurite, new VirtualClock(START));
    expect(await driver.restore()).toEqual({ instances: 1, resumed: 0 });
    expect(await driver.getStatus('done-1')).toEqual(finished);
    await driver.verifyReplay('done-1');
    expect(calls.length).toBe(before);
    await driver.close();
    await azurite.close();
  });

  it('starts an episode’s activities only once its save is written, and holds them without calling the instance stalled', async () => {
    const azurite = await startAzurite();
    const store = historyStore(azurite);
    let holdSaves = false;
    let savesAsked = 0;
    const held: (() => void)[] = [];
    const gated: HistoryStore = {
      load: () => store.load(),
      save: async (save) => {
        if (holdSaves) {
          savesAsked += 1;
          await new Promise<void>((resolve) => held.push(resolve));
        }
        await store.save(save);
      },
      durable: () => store.durable(),
    };
    const once: OrchestrationHandler = function* (context) {
      return (yield context.df.callActivity('step', context.df.getInput<string>())) as string;
    };
    const driver = new OrchestrationDriver({
      orchestrators: { once },
      activities,
      clock: new VirtualClock(START),
      history: gated,
    });
    expect(await driver.startNew('once', 'held-1', 'held early')).toBe('started');
    // The first episode runs after this (setImmediate): its save is the one held.
    holdSaves = true;
    let told: string | undefined;
    const finished = driver.waitFor('held-1', 20_000).then(
      (state) => {
        told = state.runtimeStatus;
        return state;
      },
      (error: unknown) => {
        told = String(error);
        throw error;
      },
    );
    await until('the episode’s save', () => savesAsked === 1);
    // Not written yet: a kill now would run the episode again, so nothing of it ran.
    expect(calls).not.toContain('step held early');
    await new Promise((resolve) => setImmediate(resolve));
    expect(told).toBeUndefined();

    holdSaves = false;
    for (const resolve of held.splice(0)) resolve();
    expect(await finished).toMatchObject({ runtimeStatus: 'Completed', output: 'did held early' });
    expect(calls.filter((call) => call === 'step held early')).toHaveLength(1);
    await driver.close();
    await azurite.close();
  });
  it('shows an ended instance as running until its end is saved, with the custom status its last episode set', async () => {
    const azurite = await startAzurite();
    const store = historyStore(azurite);
    let holdSaves = false;
    const held: (() => void)[] = [];
    const gated: HistoryStore = {
      load: () => store.load(),
      save: async (save) => {
        if (holdSaves) await new Promise<void>((resolve) => held.push(resolve));
        await store.save(save);
      },
      durable: () => store.durable(),
    };
    const shown: OrchestrationHandler = function* (context) {
      context.df.setCustomStatus({ stage: 'working' });
      const done = (yield context.df.callActivity('gate', 'shown')) as string;
      context.df.setCustomStatus({ stage: 'done' });
      return done;
    };
    gateOpen = false;
    const driver = new OrchestrationDriver({
      orchestrators: { shown },
      activities,
      clock: new VirtualClock(START),
      history: gated,
    });
    await driver.startNew('shown', 'shown-1', null);
    await until('the gate activity', () => gateWaiters.length > 0);
    holdSaves = true;
    gateOpen = true;
    for (const resolve of gateWaiters.splice(0)) resolve();
    await until('the end’s save', () => held.length > 0);

    const before = await driver.getStatus('shown-1');
    // Running, with what the ending episode set: its end is all that is not shown yet.
    expect(before).toMatchObject({ runtimeStatus: 'Running', customStatus: { stage: 'done' } });
    expect(before?.output).toBeUndefined();
    // Each query answers a state of its own.
    (before!.customStatus as { stage: string }).stage = 'changed';
    expect((await driver.getStatus('shown-1'))?.customStatus).toEqual({ stage: 'done' });

    holdSaves = false;
    for (const resolve of held.splice(0)) resolve();
    expect(await driver.waitFor('shown-1', 20_000)).toMatchObject({
      runtimeStatus: 'Completed',
      output: 'passed shown',
      customStatus: { stage: 'done' },
    });
    expect(await driver.getStatus('shown-1')).toMatchObject({ runtimeStatus: 'Completed' });
    await driver.close();
    await azurite.close();
  });
});
