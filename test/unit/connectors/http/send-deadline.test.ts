import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { describe, expect, it } from 'vitest';
import { isProvisioningError } from '../../../../src/domain/errors';
import { mayHaveBeenApplied } from '../../../../src/domain/lost-answer';
import {
  refuseAfterSendDeadline,
  withSendDeadline,
} from '../../../../src/connectors/http/send-deadline';

const subject = 'account "ada" on connector "hr"';

async function failure(run: () => Promise<unknown>): Promise<unknown> {
  return run().then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('the send deadline of a write under an account lease', () => {
  it('refuses before anything starts once the deadline has passed, naming the account', async () => {
    let ran = false;
    const error = await failure(() =>
      withSendDeadline({ notAfterMs: 1_000, now: () => 1_001, subject }, async () => {
        ran = true;
      }),
    );
    expect(ran).toBe(false);
    expect(isProvisioningError(error) && error.code).toBe('ACCOUNT_LEASE_ENDING');
    expect((error as Error).message).toContain(subject);
  });

  it('lets attempts start until the deadline, then refuses the next one after releasing it', async () => {
    let now = 500;
    const released: string[] = [];
    const error = await failure(() =>
      withSendDeadline({ notAfterMs: 1_000, now: () => now, subject }, async () => {
        refuseAfterSendDeadline(() => released.push('first'));
        await new Promise((resolve) => setTimeout(resolve, 1));
        now = 1_000;
        refuseAfterSendDeadline(() => released.push('second'));
        now = 1_500;
        refuseAfterSendDeadline(() => released.push('third'));
      }),
    );
    expect(released).toEqual(['third']);
    expect(isProvisioningError(error) && error.code).toBe('ACCOUNT_LEASE_ENDING');
  });

  it('refuses a retry as possibly applied when an earlier attempt may have been', async () => {
    let now = 500;
    const error = await failure(() =>
      withSendDeadline({ notAfterMs: 1_000, now: () => now, subject }, async () => {
        refuseAfterSendDeadline(() => undefined);
        // The first attempt's answer was lost; the retry comes too late.
        now = 1_500;
        refuseAfterSendDeadline(() => undefined, true);
      }),
    );
    expect(isProvisioningError(error) && mayHaveBeenApplied(error.toJSON())).toBe(true);
  });

  it('holds no call outside a write to a deadline', () => {
    expect(() => refuseAfterSendDeadline(() => undefined)).not.toThrow();
  });

  it("holds the calls to it in OpenTelemetry's context when telemetry runs, across awaits and spans", async () => {
    const manager = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(manager);
    try {
      let now = 500;
      const released: string[] = [];
      const error = await failure(() =>
        withSendDeadline({ notAfterMs: 1_000, now: () => now, subject }, async () => {
          await new Promise((resolve) => setTimeout(resolve, 1));
          refuseAfterSendDeadline(() => released.push('before'));
          now = 1_500;
          // An attempt runs in a span of its own, its context made from the running one.
          await trace
            .getTracer('test')
            .startActiveSpan('PATCH', async () =>
              refuseAfterSendDeadline(() => released.push('late')),
            );
        }),
      );
      expect(released).toEqual(['late']);
      expect(isProvisioningError(error) && error.code).toBe('ACCOUNT_LEASE_ENDING');
      // Nothing of it stays behind for calls outside the write.
      expect(() => refuseAfterSendDeadline(() => released.push('outside'))).not.toThrow();
    } finally {
      context.disable();
    }
  });
});
