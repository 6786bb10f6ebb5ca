import { describe, expect, it } from 'vitest';
import { requestView } from '../../../src/api/requests-api';
import type { ProvisioningRequest } from '../../../src/domain/provisioning-request';
import type { RequestReport, StepReport } from '../../../src/domain/request-report';
import type {
  OrchestrationState,
  RuntimeStatus,
} from '../../../src/workflows/orchestration-client';
import { expectNoSecrets } from '../../support/no-secrets';

const input: ProvisioningRequest = {
  requestId: 'req-1',
  connector: 'hr',
  account: { accountId: 'ada@example.test' },
  actions: [{ type: 'create' }, { type: 'grant', groups: [{ name: 'Sales' }] }, { type: 'lock' }],
  passwordSecret: 'request-pw-req-1',
  fingerprint: 'f',
  capabilities: {
    visibilityWindowMs: 0,
    membershipReadScope: 'named',
    membershipWriteBatchSize: 1,
    membershipWritesSayIfInPlace: false,
  },
  source: 'http',
  receivedAt: '2025-03-01T08:00:00.000Z',
};

const step = (index: number, state: StepReport['state']): StepReport => ({
  index,
  action: input.actions[index]!.type,
  state,
  changes: [],
  notices: [],
});

const report = (status: RequestReport['status'], ...steps: StepReport[]): RequestReport => ({
  requestId: 'req-1',
  connector: 'hr',
  accountId: 'ada@example.test',
  status,
  steps,
  startedAt: '2025-03-01T08:00:00.000Z',
});

function state(
  runtimeStatus: RuntimeStatus,
  extra: Partial<OrchestrationState> = {},
): OrchestrationState {
  return {
    instanceId: 'request-req-1',
    name: 'provisioningRequest',
    runtimeStatus,
    input,
    output: null,
    customStatus: null,
    createdTime: '2025-03-01T08:00:00.000Z',
    lastUpdatedTime: '2025-03-01T08:00:00.000Z',
    ...extra,
  };
}

describe('requestView', () => {
  it('shows a request that has not started as pending, every step pending', () => {
    const view = requestView(state('Pending'));

    expect(view).toMatchObject({
      requestId: 'req-1',
      connector: 'hr',
      accountId: 'ada@example.test',
      status: 'pending',
      runtimeStatus: 'Pending',
    });
    expect(view.steps.map((s) => [s.action, s.state])).toEqual([
      ['create', 'pending'],
      ['grant', 'pending'],
      ['lock', 'pending'],
    ]);
    expect(view.steps[1]?.groups).toEqual(['Sales']);
  });

  it('shows the caller context of a request that has not started yet, and no secret name', () => {
    const withContext = { ...input, requestedBy: 'iga-workflow', correlationId: 'CHG-42' };
    const view = requestView(state('Pending', { input: withContext }));
    expect(view).toMatchObject({ requestedBy: 'iga-workflow', correlationId: 'CHG-42' });
    expect(view).not.toHaveProperty('reason');
    expectNoSecrets(view, { 'password secret name': input.passwordSecret }, 'the view');
  });

  it('shows the custom status while the request runs', () => {
    const running = report('running', step(0, 'succeeded'), step(1, 'running'), step(2, 'pending'));

    const view = requestView(state('Running', { customStatus: running }));

    expect(view).toEqual({ ...running, runtimeStatus: 'Running' });
  });

  it('shows the output once the request completed, over an older custom status', () => {
    const done = report('failed', step(0, 'succeeded'), step(1, 'failed'), step(2, 'skipped'));
    const stale = report('running', step(0, 'succeeded'), step(1, 'running'), step(2, 'pending'));

    const view = requestView(state('Completed', { output: done, customStatus: stale }));

    expect(view).toEqual({ ...done, runtimeStatus: 'Completed' });
  });

  it('fails the step that was running when the orchestration itself failed, without its text', () => {
    const running = report('running', step(0, 'succeeded'), step(1, 'running'), step(2, 'pending'));
    const output = "Orchestrator function 'provisioningRequest' failed: secret internals";

    const view = requestView(state('Failed', { output, customStatus: running }));

    expect(view.status).toBe('failed');
    expect(view.runtimeStatus).toBe('Failed');
    expect(view.steps[0]?.state).toBe('succeeded');
    expect(view.steps[1]).toMatchObject({
      state: 'failed',
      error: { code: 'INTERNAL_ERROR', message: 'the orchestration ended: Failed' },
    });
    expect(JSON.stringify(view)).not.toContain('secret internals');
  });

  it('fails the first step of a terminated request that never published a status', () => {
    const view = requestView(state('Terminated'));

    expect(view.status).toBe('failed');
    expect(view.steps[0]?.state).toBe('failed');
    expect(view.steps[0]?.error?.message).toBe('the orchestration ended: Terminated');
  });

  it('skips the steps that had not started when the orchestration failed', () => {
    const running = report('running', step(0, 'succeeded'), step(1, 'running'), step(2, 'pending'));

    const view = requestView(state('Failed', { customStatus: running }));

    expect(view.steps.map((s) => s.state)).toEqual(['succeeded', 'failed', 'skipped']);
  });

  it('does not show the password secret reference of the request', () => {
    const view = requestView(state('Pending'));

    expect(view).not.toHaveProperty('passwordSecret');
  });
});
