import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tableClient } from '../../src/store/storage-clients';
import { TableDriftFindings } from '../../src/store/table-drift-findings';
import { reconciliationActivities } from '../../src/workflows/activities/reconciliation-activities';
import { startTestStorage, type TestStorage } from '../support/azurite-storage';
import { metricSamples, sumBy } from '../support/metric-samples';
import { provision, report, runJob, scimAdmin } from './drift-harness';
import { startTestHost, type TestHost } from './local-host-harness';

/*
 * A drift finding's save whose first attempt Azurite applied, answered to the service with a
 * transient error (503, as a proxy or a storage front end that failed after the write may);
 * the Storage SDK retries it, and the retry meets the rows it wrote itself (409). The finding
 * is the pass's own: stored once, announced on the drift-events queue and counted in the
 * findings metric (GET /api/metrics), as any new finding.
 */
const SCIM = 'scim-sandbox';
let t: TestHost;
let storage: TestStorage;
let proxy: Server;
let proxyUrl: string;
/** The finding saves the proxy let through to Azurite and answered 503 (the lost answers). */
let lost = 0;
/** The finding saves that reached the proxy, in order: the status of Azurite's first sub-response. */
const batches: number[] = [];

/** A loopback proxy to Azurite's table endpoint: the first finding save's answer is lost. */
async function startProxy(target: URL): Promise<void> {
  proxy = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks);
      const forward = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          method: incoming.method,
          path: incoming.url,
          headers: { ...incoming.headers, host: target.host },
        },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => parts.push(chunk));
          answer.on('end', () => {
            const isFindingSave =
              (incoming.url ?? '').includes('$batch') &&
              body.toString().includes('memberAddedOutside');
            const part = /HTTP\/1\.1 (\d+)/.exec(Buffer.concat(parts).toString());
            if (isFindingSave) batches.push(Number(part?.[1] ?? answer.statusCode));
            if (isFindingSave && lost === 0) {
              // Applied by Azurite; the service gets a transient error instead of its answer.
              lost += 1;
              outgoing.writeHead(503, { 'content-type': 'application/json' }).end('{}');
              return;
            }
            outgoing.writeHead(answer.statusCode ?? 500, answer.headers).end(Buffer.concat(parts));
          });
        },
      );
      forward.on('error', () => outgoing.destroy());
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/devstoreaccount1`;
}

beforeAll(async () => {
  storage = await startTestStorage();
  t = await startTestHost({}, { storage: storage.connection });
  const connection =
    storage.connection.kind === 'connectionString' ? storage.connection.connectionString : '';
  await startProxy(new URL(/TableEndpoint=([^;]+)/.exec(connection)![1]!));
  await runJob(t, `/api/connectors/${SCIM}/imports`, {});
  await provision(t, {
    connector: SCIM,
    account: { accountId: 'ada', displayName: 'Ada' },
    actions: [{ type: 'create' }, { type: 'grant', groups: ['Engineering'] }],
  });
}, 120_000);
afterAll(async () => {
  await t?.close();
  await new Promise<void>((resolve) => (proxy ? proxy.close(() => resolve()) : resolve()));
  await storage?.close();
});

describe('a finding save applied but answered with a transient error', () => {
  it('stores the finding once, announces it and counts it', async () => {
    await scimAdmin(t).addMember(t.host.sandboxes!.scimGroups['Finance']!, 'ada');
    t.clock.advanceBy(5 * 60_000);
    const connection =
      storage.connection.kind === 'connectionString' ? storage.connection.connectionString : '';
    const throughProxy = connection.replace(/TableEndpoint=[^;]+/, `TableEndpoint=${proxyUrl}`);
    const drift = new TableDriftFindings(
      tableClient({ kind: 'connectionString', connectionString: throughProxy }, 'DriftFindings'),
    );
    const services = { ...t.host.services, drift };
    const before = sumBy(
      await metricSamples(t),
      'provisioning_reconciliation_findings_total',
      'provisioning_finding',
    );

    const at = new Date(t.clock.now()).toISOString();
    const answer = await reconciliationActivities(async () => services).reconcileTarget({
      connector: SCIM,
      jobId: 'lost-save',
      at,
      readAt: at,
      settleMs: 120_000,
    });
    expect(answer.ok, JSON.stringify(answer)).toBe(true);

    // The save was applied, its answer lost, and the SDK's retry met its own rows.
    expect(lost).toBe(1);
    expect(batches.slice(0, 2)).toEqual([204, 409]);
    const stored = await report(t, SCIM, { status: 'open' });
    expect(stored.map((f) => [f.type, f.accountId, f.groupName])).toEqual([
      ['memberAddedOutside', 'ada', 'Finance'],
    ]);
    const events = (await t.host.services.driftEvents.peek(32)) as { findingId?: string }[];
    expect(events.map((event) => event.findingId)).toEqual([stored[0]!.findingId]);
    const after = sumBy(
      await metricSamples(t),
      'provisioning_reconciliation_findings_total',
      'provisioning_finding',
    );
    expect((after['member_added_outside'] ?? 0) - (before['member_added_outside'] ?? 0)).toBe(1);
  }, 120_000);
});
