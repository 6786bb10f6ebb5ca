import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGraphConnector } from '../../../src/connectors/graph/graph-connector';
import { LocalSecretStore } from '../../../src/secrets';
import { ADMIN, SECRET_NAME, startHarness, type Harness } from './graph-harness';

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => {
  await harness.close();
});

describe('client secret rotation (connector B)', () => {
  it('uses a new client secret from the SecretStore without a restart', async () => {
    const secrets = new LocalSecretStore({ [SECRET_NAME]: 'an-old-revoked-secret' });
    const connector = createGraphConnector(harness.settings(), { secrets, ca: harness.sandbox.ca });
    try {
      const before = await connector.checkStatus();
      expect(before.ok).toBe(false);
      expect(JSON.stringify(before)).toContain('invalid_client');

      await secrets.set(SECRET_NAME, ADMIN.secret);
      expect((await connector.checkStatus()).ok).toBe(true);

      // The token cache belongs to the secret: a changed secret is used at once, not pinned.
      await secrets.set(SECRET_NAME, 'rotated-but-wrong');
      expect((await connector.checkStatus()).ok).toBe(false);
    } finally {
      await connector.close();
    }
  });
});
