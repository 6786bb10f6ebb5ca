import { afterEach, expect } from 'vitest';
import type {
  ProvisioningAction,
  ProvisioningRequest,
} from '../../../src/domain/provisioning-request';
import type { RequestReport, StepState } from '../../../src/domain/request-report';
import { OrchestrationDriver } from '../../../src/runtime/local-host/orchestration-driver';
import { VirtualClock } from '../../../src/runtime/local-host/virtual-clock';
import { ORCHESTRATIONS, requestInstanceId } from '../../../src/workflows/names';
import { ORCHESTRATORS } from '../../../src/workflows/orchestrators';
import { FAKE_CAPABILITIES, FakeTarget, type FakeTargetOptions } from './fake-activities';

/** A fixed virtual start time. */
export const START = Date.parse('2025-03-01T08:00:00.000Z');
/** Wall-time bound for one orchestration: virtual time makes every run short. */
export const WAIT_MS = 5_000;

export const SALES = { id: 'g-sales', displayName: 'Sales' };
export const OPS = { id: 'g-ops', displayName: 'Ops' };
export const FINANCE = { id: 'g-finance', displayName: 'Finance' };
export const LEGAL = { id: 'g-legal', displayName: 'Legal' };

export interface Workbench {
  clock: VirtualClock;
  target: FakeTarget;
  driver: OrchestrationDriver;
}

/**
 * A fake target and a replay driver running the real orchestrators on a virtual clock
 * that jumps to the next durable timer. Drivers are closed after each test of the file.
 */
export function useWorkbench(): (options?: Omit<FakeTargetOptions, 'clock'>) => Workbench {
  const drivers: OrchestrationDriver[] = [];
  afterEach(async () => {
    await Promise.all(drivers.splice(0).map((driver) => driver.close()));
  });
  return (options = {}) => {
    const clock = new VirtualClock(START);
    const target = new FakeTarget({ groups: [SALES, OPS, FINANCE, LEGAL], ...options, clock });
    const driver = new OrchestrationDriver({
      orchestrators: ORCHESTRATORS,
      activities: target.activities(),
      clock,
    });
    drivers.push(driver);
    return { clock, target, driver };
  };
}

/** A provisioning request as the API hands it to the orchestration. */
export function provisioningRequest(
  requestId: string,
  actions: ProvisioningAction[],
  extra: Partial<ProvisioningRequest> = {},
): ProvisioningRequest {
  return {
    requestId,
    connector: 'hr',
    account: { accountId: 'ada@example.test', displayName: 'Ada Lovelace' },
    actions,
    fingerprint: `fingerprint-${requestId}`,
    capabilities: FAKE_CAPABILITIES,
    source: 'http',
    receivedAt: new Date(START).toISOString(),
    ...extra,
  };
}

/** Starts a request without waiting for it. */
export async function startRequest(
  driver: OrchestrationDriver,
  request: ProvisioningRequest,
): Promise<void> {
  await driver.startNew(
    ORCHESTRATIONS.provisioningRequest,
    requestInstanceId(request.requestId),
    request,
  );
}

/**
 * Waits for a started request and returns its report; every run is also replayed on
 * each prefix of its history (determinism, platform-notes.md).
 */
export async function finishRequest(
  driver: OrchestrationDriver,
  requestId: string,
): Promise<RequestReport> {
  const instanceId = requestInstanceId(requestId);
  const state = await driver.waitFor(instanceId, WAIT_MS);
  expect(state.runtimeStatus, JSON.stringify(state.output)).toBe('Completed');
  await expect(driver.verifyReplay(instanceId)).resolves.toBeUndefined();
  return state.output as RequestReport;
}

/** Starts a request and waits for its report. */
export async function runRequest(
  driver: OrchestrationDriver,
  request: ProvisioningRequest,
): Promise<RequestReport> {
  await startRequest(driver, request);
  return finishRequest(driver, request.requestId);
}

/** The state of every step, in order. */
export function stepStates(report: Pick<RequestReport, 'steps'>): StepState[] {
  return report.steps.map((step) => step.state);
}

/** Virtual seconds since START, for readable time assertions. */
export function seconds(at: number): number {
  return (at - START) / 1_000;
}
