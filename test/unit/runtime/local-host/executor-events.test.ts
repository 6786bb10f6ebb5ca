import { describe, expect, it } from 'vitest';
import { historyEvent, type HistoryEvent } from '../../../../src/runtime/local-host/history-events';
import {
  executorEvents,
  type ReplayView,
} from '../../../../src/runtime/local-host/orchestrator-replay';

const AT = Date.UTC(2026, 10, 24, 9, 0);

function history(): HistoryEvent[] {
  return [
    historyEvent.orchestratorStarted(AT),
    historyEvent.executionStarted(AT, 'provisioningRequest', '{}'),
    historyEvent.taskScheduled(AT, 0, 'recordStep', '{}'),
  ];
}

describe('executorEvents', () => {
  it('without a view, copies each event: the executor changing one leaves the history as it was', () => {
    const events = history();
    const copies = executorEvents(events, undefined);
    expect(copies).toEqual(events.map((event) => ({ ...event, Timestamp: new Date(AT) })));
    for (const copy of copies) copy.IsPlayed = true;
    expect(events.map((event) => event.IsPlayed)).toEqual([false, false, false]);
  });

  it('hands each event over with its Timestamp as a Date, as the library would turn it', () => {
    const events = history();
    for (const event of [
      ...executorEvents(events, undefined),
      ...executorEvents(events, { events: [] }),
    ]) {
      expect(event.Timestamp).toEqual(new Date(AT));
    }
    expect(events.map((event) => typeof event.Timestamp)).toEqual(['string', 'string', 'string']);
  });

  it('with a view, adds copies of the events it lacks and keeps the events it holds', () => {
    const events = history();
    const view: ReplayView = { events: [] };
    const first = executorEvents(events.slice(0, 2), view);
    expect(first).toBe(view.events);
    expect(first).toHaveLength(2);
    const held = first[0];

    const second = executorEvents(events, view);
    expect(second).toHaveLength(3);
    expect(second[0]).toBe(held);
    // An event the executor read before is handed on as it left it, not copied again.
    expect(second[2]).toEqual({ ...events[2], Timestamp: new Date(AT) });
    expect(second[2]).not.toBe(events[2]);
  });

  it('takes each event IsPlayed from the history again, as the driver marks events played', () => {
    const events = history();
    const view: ReplayView = { events: [] };
    executorEvents(events, view);
    for (const event of events) event.IsPlayed = true;
    expect(executorEvents(events, view).map((event) => event.IsPlayed)).toEqual([true, true, true]);
  });
});
