import { describe, expect, it } from 'vitest';
import { ProvisioningError, type SerializedError } from '../../../src/domain/errors';
import type { Logger } from '../../../src/domain/logger';
import { activityFailure } from '../../../src/runtime/local-host/activity-runner';
import {
  RETRYABLE_MARKER,
  errorFromActivityFailure,
  runActivity,
} from '../../../src/workflows/activity-result';
import type { WorkflowServices } from '../../../src/workflows/workflow-services';

function recordingServices() {
  const lines: string[] = [];
  const record = (message: string) => {
    lines.push(message);
  };
  const logger: Logger = { debug: record, info: record, warn: record, error: record };
  // runActivity only reads the logger of the services.
  const services = async () => ({ logger }) as WorkflowServices;
  return { lines, services };
}

/** The message an orchestrator sees for a failed activity (TaskOrchestrationExecutor: `${Reason} \n ${Details}`). */
function asOrchestratorSeesIt(name: string, thrown: unknown): Error {
  const outcome = activityFailure(name, thrown);
  if (outcome.ok) throw new Error('expected a failure');
  return new Error(`${outcome.reason} \n ${outcome.details}`);
}

async function thrownBy(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the activity to throw');
}

const unavailable: SerializedError = {
  code: 'TARGET_UNAVAILABLE',
  message: 'the target answered 503 {"error":"busy"}',
  retryable: true,
  status: 503,
  object: 'hr',
};

describe('runActivity', () => {
  it('returns the value of a body that succeeds', async () => {
    const { services } = recordingServices();

    await expect(runActivity('findAccount', services, async () => 42)).resolves.toEqual({
      ok: true,
      value: 42,
    });
  });

  it('returns an expected (non-retryable) failure as data with its details', async () => {
    const { services } = recordingServices();
    const failure = new ProvisioningError('MEMBERSHIP_MISMATCH', 'still differs', {
      object: 'ada',
      details: { missing: [{ id: 'g1', name: 'Sales' }], unexpected: [] },
    });

    const result = await runActivity('readMemberships', services, async () => {
      throw failure;
    });

    expect(result).toEqual({ ok: false, error: failure.toJSON() });
    expect(result.ok === false && result.error.details).toEqual({
      missing: [{ id: 'g1', name: 'Sales' }],
      unexpected: [],
    });
  });

  it('throws a retryable failure with its serialized form after the marker, without a cause', async () => {
    const { lines, services } = recordingServices();

    const error = await thrownBy(
      runActivity('applyMembershipChanges', services, async () => {
        throw new ProvisioningError(unavailable.code, unavailable.message, {
          retryable: true,
          status: 503,
          object: 'hr',
          cause: new Error('socket said Bearer abc.def'),
        });
      }),
    );

    expect(error.message.startsWith(RETRYABLE_MARKER)).toBe(true);
    expect(JSON.parse(error.message.slice(RETRYABLE_MARKER.length))).toEqual(unavailable);
    expect(error.cause).toBeUndefined();
    expect(error.message).not.toContain('Bearer');
    expect(lines).toEqual([
      'activity applyMembershipChanges: retryable failure TARGET_UNAVAILABLE',
    ]);
  });

  it('throws any other error as a retryable INTERNAL_ERROR naming the activity', async () => {
    const { lines, services } = recordingServices();

    const error = await thrownBy(
      runActivity('createAccount', services, async () => {
        throw new TypeError('x is undefined');
      }),
    );

    expect(JSON.parse(error.message.slice(RETRYABLE_MARKER.length))).toEqual({
      code: 'INTERNAL_ERROR',
      message: 'activity createAccount failed unexpectedly: x is undefined',
      retryable: true,
    });
    expect(lines).toHaveLength(1);
  });

  it('returns a non-retryable failure to build the services as data', async () => {
    const services = async (): Promise<WorkflowServices> => {
      throw new ProvisioningError('CONFIG_INVALID', 'setting JOURNAL_TABLE is missing');
    };

    const result = await runActivity('recordJournal', services, async () => 1);

    expect(result).toMatchObject({ ok: false, error: { code: 'CONFIG_INVALID' } });
  });
});

describe('errorFromActivityFailure', () => {
  it('reads the serialized error a retryable failure carried through the driver', async () => {
    const { services } = recordingServices();
    const thrown = await thrownBy(
      runActivity('applyMembershipChanges', services, async () => {
        throw new ProvisioningError(unavailable.code, unavailable.message, {
          retryable: true,
          status: 503,
          object: 'hr',
        });
      }),
    );

    const seen = asOrchestratorSeesIt('applyMembershipChanges', thrown);

    expect(errorFromActivityFailure(seen, 'applyMembershipChanges')).toEqual(unavailable);
  });

  it('reads the serialized error when the message ends in $OutOfProcData$', () => {
    const message = `${RETRYABLE_MARKER}${JSON.stringify(unavailable)}\n\n$OutOfProcData$:{"isDone":false}`;

    expect(errorFromActivityFailure(new Error(message), 'readMemberships')).toEqual(unavailable);
  });

  it('reads the serialized error when nothing follows it', () => {
    const message = `${RETRYABLE_MARKER}${JSON.stringify(unavailable)}`;

    expect(errorFromActivityFailure(new Error(message), 'readMemberships')).toEqual(unavailable);
  });

  it('falls back to INTERNAL_ERROR, cut before $OutOfProcData$, for an unmarked failure', () => {
    const error = new Error('Activity function readMemberships failed: boom\n\n$OutOfProcData$:{}');

    expect(errorFromActivityFailure(error, 'readMemberships')).toEqual({
      code: 'INTERNAL_ERROR',
      message:
        'activity readMemberships failed: Activity function readMemberships failed: boom\n\n',
      retryable: false,
    });
  });

  it('falls back to INTERNAL_ERROR when the serialized error was cut on the way', () => {
    const cut = `${RETRYABLE_MARKER}{"code":"TARGET_UNAVAILABLE","mess`;

    const error = errorFromActivityFailure(new Error(cut), 'findAccount');

    expect(error.code).toBe('INTERNAL_ERROR');
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('activity findAccount failed');
  });

  it('accepts a thrown value that is not an Error', () => {
    expect(errorFromActivityFailure('plain text', 'findAccount')).toEqual({
      code: 'INTERNAL_ERROR',
      message: 'activity findAccount failed: plain text',
      retryable: false,
    });
  });
});
