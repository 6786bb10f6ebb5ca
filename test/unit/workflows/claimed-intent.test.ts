import { describe, expect, it } from 'vitest';
import { ProvisioningError } from '../../../src/domain/errors';
import { silentLogger } from '../../../src/domain/logger';
import { accountWriteChangedNothing } from '../../../src/domain/lost-answer';
import { underIntent } from '../../../src/workflows/activities/claimed-intent';
import type { WorkflowServices } from '../../../src/workflows/workflow-services';

/** Services with an intent store that keeps its claims in a set: what is claimed is what is kept. */
function withIntents(claimedBefore: string[] = []) {
  const claimed = new Set(claimedBefore);
  const services = {
    intents: {
      claim: async (key: string) => {
        const before = claimed.has(key);
        claimed.add(key);
        return before;
      },
      withdraw: async (key: string) => void claimed.delete(key),
    },
    logger: silentLogger,
  } as unknown as WorkflowServices;
  return { services, claimed };
}

const input = { intentKey: 'k1', intentDay: '2026-11-24' };
const throttled = () =>
  new ProvisioningError('TARGET_THROTTLED', 'answered 429', { status: 429, retryable: false });

describe('a write under its intent', () => {
  it('withdraws the claim it made when the write was refused: the next run claims it anew', async () => {
    const { services, claimed } = withIntents();
    const write = underIntent(services, input, accountWriteChangedNothing, async () => {
      throw throttled();
    });
    await expect(write).rejects.toMatchObject({ code: 'TARGET_THROTTLED' });
    expect(claimed.has('k1')).toBe(false);
  });

  it('keeps the claim when what follows the write fails: the write was made', async () => {
    const { services, claimed } = withIntents();
    const write = underIntent(
      services,
      input,
      accountWriteChangedNothing,
      async () => 'created',
      async () => {
        // Deleting the spent password secret is throttled by the vault.
        throw throttled();
      },
    );
    await expect(write).rejects.toMatchObject({ code: 'TARGET_THROTTLED' });
    expect(claimed.has('k1')).toBe(true);
  });

  it("keeps an earlier run's claim, and one whose write may have been applied", async () => {
    const earlier = withIntents(['k1']);
    await expect(
      underIntent(earlier.services, input, accountWriteChangedNothing, async () => {
        throw throttled();
      }),
    ).rejects.toThrow();
    expect(earlier.claimed.has('k1')).toBe(true);
    const lost = withIntents();
    await expect(
      underIntent(lost.services, input, accountWriteChangedNothing, async () => {
        throw new ProvisioningError('TARGET_THROTTLED', 'answered 429 after a 504', {
          status: 429,
          details: { maybeApplied: true },
        });
      }),
    ).rejects.toThrow();
    expect(lost.claimed.has('k1')).toBe(true);
  });

  it('tells the write and what follows whether an earlier run claimed it', async () => {
    const { services } = withIntents(['k1']);
    const seen = await underIntent(
      services,
      input,
      accountWriteChangedNothing,
      async (tried) => `write ${tried}`,
      (answer, tried) => `${answer}, after ${tried}`,
    );
    expect(seen).toBe('write true, after true');
  });
});
