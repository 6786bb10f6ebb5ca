import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScimTarget, TOKEN, type ScimTarget } from '../../support/scim-target';
import { expectNoSecrets } from '../../support/no-secrets';

let target: ScimTarget;
beforeAll(async () => {
  target = await startScimTarget();
});
afterAll(async () => {
  await target.close();
});

describe('bearer token rotation (connector A)', () => {
  it('uses the token the SecretStore holds now, and keeps the old one out of messages', async () => {
    expect((await target.connector.checkStatus()).ok).toBe(true);

    await target.secrets.set('scim-token', 'rotated-token-not-accepted-41');
    const refused = await target.connector.checkStatus();
    expect(refused.ok).toBe(false);
    expectNoSecrets(refused, { 'rotated token': 'rotated-token-not-accepted-41' }, 'the status');

    await target.secrets.set('scim-token', TOKEN);
    expect((await target.connector.checkStatus()).ok).toBe(true);
  });
});
