import { describe, expect, it } from 'vitest';
import { readAfterWrite } from '../../../src/connectors/read-after-write';
import { ProvisioningError } from '../../../src/domain/errors';

const throttled = () =>
  Promise.reject(
    new ProvisioningError('TARGET_THROTTLED', 'lookup answered 429', {
      status: 429,
      details: { retryAfter: 30 },
    }),
  );

describe('a read a write call needs before it can answer (the lookup after a 409)', () => {
  it('fails saying the write may have been applied when an earlier attempt of it may have been', async () => {
    const error = await readAfterWrite(true, throttled).catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      code: 'TARGET_THROTTLED',
      status: 429,
      details: { retryAfter: 30, maybeApplied: true },
    });
  });

  it('fails as the read did when no attempt may have been applied, and answers as it did', async () => {
    const error = await readAfterWrite(false, throttled).catch((caught: unknown) => caught);
    expect((error as ProvisioningError).details).toEqual({ retryAfter: 30 });
    expect(await readAfterWrite(true, async () => 'found')).toBe('found');
  });
});
