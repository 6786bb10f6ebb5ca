import { describe, expect, it } from 'vitest';
import {
  initialSteps,
  requestStatus,
  skipRemaining,
  type StepReport,
  type StepState,
} from '../../../src/domain/request-report';

const withStates = (...states: StepState[]): StepReport[] =>
  states.map((state, index) => ({ index, action: 'lock', state, changes: [], notices: [] }));

describe('initialSteps', () => {
  it('gives every action a pending step in order, with the groups as the request named them', () => {
    const steps = initialSteps([
      { type: 'create' },
      { type: 'grant', groups: [{ name: 'Sales' }, { id: '8f1c' }] },
      { type: 'setMemberships', groups: [] },
    ]);

    expect(steps).toEqual([
      { index: 0, action: 'create', state: 'pending', changes: [], notices: [] },
      {
        index: 1,
        action: 'grant',
        groups: ['Sales', 'id:8f1c'],
        state: 'pending',
        changes: [],
        notices: [],
      },
      {
        index: 2,
        action: 'setMemberships',
        groups: [],
        state: 'pending',
        changes: [],
        notices: [],
      },
    ]);
  });

  it('gives no steps for no actions', () => {
    expect(initialSteps([])).toEqual([]);
  });
});

describe('skipRemaining', () => {
  it('skips the pending steps after the failed one and leaves the earlier ones', () => {
    const steps = withStates('succeeded', 'failed', 'pending', 'pending');

    const after = skipRemaining(steps, 1).map((step) => step.state);

    expect(after).toEqual(['succeeded', 'failed', 'skipped', 'skipped']);
  });

  it('skips only the steps after the index, not a pending one before it', () => {
    const after = skipRemaining(withStates('pending', 'failed', 'pending'), 1);

    expect(after.map((step) => step.state)).toEqual(['pending', 'failed', 'skipped']);
  });

  it('does not change the steps it was given', () => {
    const steps = withStates('failed', 'pending');

    skipRemaining(steps, 0);

    expect(steps.map((step) => step.state)).toEqual(['failed', 'pending']);
  });
});

describe('requestStatus', () => {
  it('is failed as soon as one step failed', () => {
    expect(requestStatus(withStates('succeeded', 'failed', 'skipped'))).toBe('failed');
  });

  it('is succeeded when every step succeeded', () => {
    expect(requestStatus(withStates('succeeded', 'succeeded'))).toBe('succeeded');
  });

  it('is succeeded when the steps that did not succeed were skipped', () => {
    expect(requestStatus(withStates('succeeded', 'skipped'))).toBe('succeeded');
  });

  it('is pending while no step started', () => {
    expect(requestStatus(withStates('pending', 'pending'))).toBe('pending');
  });

  it('is running while a step runs or some are still to come', () => {
    expect(requestStatus(withStates('succeeded', 'running', 'pending'))).toBe('running');
    expect(requestStatus(withStates('succeeded', 'pending'))).toBe('running');
  });
});
