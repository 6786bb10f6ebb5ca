import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type AppConfig } from '../../../src/config/app-config';
import { connectorSettingsKinds } from '../../../src/connectors/connector-kinds';
import { scimConnectorSchema } from '../../../src/connectors/scim/scim-settings';
import { silentLogger } from '../../../src/domain/logger';
import { buildServices } from '../../../src/runtime/build-services';
import { startScimSandbox, type ScimSandbox } from '../../../src/sandbox/scim';
import { LocalSecretStore } from '../../../src/secrets/local-secret-store';
import { linkAccountByOperator } from '../../../src/workflows/operator-link';
import type { WorkflowServices } from '../../../src/workflows/workflow-services';
import { startTestStorage, type TestStorage } from '../../support/azurite-storage';

/**
 * An operator's link (after ACCOUNT_EXISTS) whose reads of the target outlast its lease (a slow
 * target): a request takes the account meanwhile and links the account it creates. The link
 * must not land over it (DESIGN invariant 7): refused, the request's link kept. Real SCIM
 * sandbox (slowed), real storage; the lease's clock is the services' own.
 */
const TOKEN = 'operator-link-race-token';
const TTL = 60_000;
let storage: TestStorage;
let sandbox: ScimSandbox | undefined;
let services: WorkflowServices | undefined;
beforeAll(async () => {
  storage = await startTestStorage();
});
afterEach(async () => {
  await services?.registry.close();
  await sandbox?.close();
});
afterAll(async () => {
  await storage?.close();
});

describe("an operator's link whose reads outlast its lease", () => {
  it('is refused when a request took the account meanwhile, and leaves the request’s link as it is', async () => {
    sandbox = await startScimSandbox({ auth: { type: 'bearer', token: TOKEN } });
    const [holder] = sandbox.seedUsers([{ userName: 'ada' }]);
    const config: AppConfig = {
      ...loadConfig({}, connectorSettingsKinds()),
      connectors: [
        scimConnectorSchema.parse({
          name: 'app',
          kind: 'scim',
          baseUrl: sandbox.baseUrl,
          auth: { type: 'bearer', tokenSecret: 'scim-token' },
          timeoutMs: 5_000,
        }),
      ],
    };
    let nowMs = Date.parse('2026-11-25T06:00:00.000Z');
    services = {
      ...buildServices({
        config,
        logger: silentLogger,
        storage: storage.connection,
        secrets: new LocalSecretStore({ 'scim-token': TOKEN }),
      }),
      now: () => nowMs,
    };
    const { accounts } = services;
    // A past request linked "ada" to an object deleted outside since (never on the target now).
    const past = await accounts.acquire('app', 'ada', 'request-0', nowMs - 3_600_000, TTL);
    await accounts.commitStep({
      connector: 'app',
      accountId: 'ada',
      owner: 'request-0',
      leaseExpiresAtMs: nowMs - 3_600_000 + TTL,
      etag: past.etag!,
      stored: past.record ?? null,
      entries: [],
      update: { link: { targetId: 'gone-1', linkedAt: new Date(nowMs - 3_600_000).toISOString() } },
      release: true,
    });

    // The target answers slowly; while the link reads it, its lease runs out and a request
    // takes the account and links the account it made.
    sandbox.setQuirks({ latencyMs: 400 });
    const linking = linkAccountByOperator(services, 'app', 'ada', {
      targetId: holder!.id,
      reason: 'HR-1234',
      byName: 'bob',
      at: new Date(nowMs).toISOString(),
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    nowMs += TTL + 1_000;
    const request = await accounts.acquire('app', 'ada', 'request-1', nowMs, 10 * TTL);
    expect(request.acquired).toBe(true);
    await accounts.commitStep({
      connector: 'app',
      accountId: 'ada',
      owner: 'request-1',
      leaseExpiresAtMs: nowMs + 10 * TTL,
      etag: request.etag!,
      stored: request.record ?? null,
      entries: [],
      update: { link: { targetId: 'made-3', linkedAt: new Date(nowMs).toISOString() } },
      release: false,
    });

    await expect(linking).rejects.toMatchObject({ code: 'ACCOUNT_BUSY' });
    expect(await accounts.get('app', 'ada')).toMatchObject({ targetId: 'made-3' });
    expect((await accounts.get('app', 'ada'))?.linkedBy).toBeUndefined();
  });
});
