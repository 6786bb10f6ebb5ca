import { describe, expect, it } from 'vitest';
import type { RequestReport, StepChange } from '../../../src/domain/request-report';
import { leasePollDelay } from '../../../src/workflows/orchestrators/account-hold';
import { customStatusOf } from '../../../src/workflows/orchestrators/provisioning-request';

const changes = (count: number): StepChange[] =>
  Array.from({ length: count }, (_, i) => ({
    change: 'member added',
    groupId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    groupName: `Group with a fairly long display name number ${i}`,
  }));

const report = (count: number): RequestReport => ({
  requestId: 'r-1',
  connector: 'entra',
  accountId: 'ada@example.test',
  status: 'running',
  steps: [
    {
      index: 0,
      action: 'setMemberships',
      state: 'succeeded',
      changes: changes(count),
      notices: [],
    },
  ],
});

describe('custom status of a provisioning request', () => {
  it('stays under the 16 KB Durable limit for a step with 500 changes, and says how many are left out', () => {
    const status = customStatusOf(report(500));
    expect(JSON.stringify(status).length).toBeLessThan(16 * 1024);
    expect(status.steps[0]?.changes).toHaveLength(25);
    expect(status.steps[0]?.notices).toEqual(['475 more changes: listed when the request ends']);
  });

  it('keeps a small step as it is', () => {
    const small = report(3);
    expect(customStatusOf(small)).toEqual(small);
  });
});

describe('lease polls', () => {
  it('poll every second at first, then back off to at most 15 s', () => {
    const delays = Array.from({ length: 20 }, (_, poll) => leasePollDelay(poll));
    expect(delays.slice(0, 10)).toEqual(Array(10).fill(1_000));
    expect(delays[10]).toBe(1_500);
    expect(Math.max(...delays)).toBe(15_000);
    // Ten minutes of waiting take some 50 polls, not 600.
    let waited = 0;
    let polls = 0;
    while (waited < 10 * 60_000) waited += leasePollDelay(polls++);
    expect(polls).toBeLessThan(60);
  });
});
