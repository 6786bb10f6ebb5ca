import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TABLES } from '../../src/runtime/build-services';
import { tableClient } from '../../src/store/storage-clients';
import { parseCsv } from '../browser/csv';
import { startTestStorage, type TestStorage } from '../support/azurite-storage';
import { startTestHost, type TestHost } from './local-host-harness';

/*
 * Finding F5: the service takes `Spell.Graph@Contoso.example` and `spell.graph@contoso.example`
 * for one account (one lease, one record), so an auditor asking what was done to it must get
 * every entry, whichever spelling they type. Over HTTP on the local host, on its Azurite.
 */
let storage: TestStorage;
let t: TestHost;
beforeAll(async () => {
  storage = await startTestStorage();
  t = await startTestHost({}, { storage: storage.connection });
});
afterAll(async () => {
  await t?.close();
  await storage?.close();
});

const CONNECTOR = 'graph-sandbox';
const FIRST = 'Spell.Graph@Contoso.example';
const SECOND = 'spell.graph@contoso.example';

async function submit(accountId: string, actions: unknown[]): Promise<string> {
  const answer = await t.api('POST', '/api/requests', {
    connector: CONNECTOR,
    account: { accountId, displayName: 'Spell Graph' },
    actions,
  });
  expect(answer.status, answer.text).toBe(202);
  const requestId = answer.body.requestId as string;
  expect((await t.finished(requestId)).status).toBe('succeeded');
  return requestId;
}

type Entry = { requestId: string; accountId: string; change: string };
const gist = (entries: Entry[]) =>
  entries.map(({ requestId, accountId, change }) => ({ requestId, accountId, change }));

describe('an account asked for under several spellings', () => {
  let created: string;
  let locked: string;
  let expected: Entry[];
  beforeAll(async () => {
    created = await submit(FIRST, [{ type: 'create' }, { type: 'grant', groups: ['Sales'] }]);
    t.clock.advanceBy(1_000);
    locked = await submit(SECOND, [{ type: 'lock' }]);
    // The target holds one account, locked and in Sales: the two spellings were one account.
    const graph = t.host.sandboxes!.graph;
    const userId = graph.userIdByUpn(SECOND)!;
    expect(graph.getUser(userId)).toMatchObject({
      userPrincipalName: FIRST,
      accountEnabled: false,
    });
    const named = graph
      .snapshot()
      .users.filter((u) => String(u['userPrincipalName']).toLowerCase() === SECOND);
    expect(named).toHaveLength(1);
    const all = await t.api('GET', `/api/journal?connector=${CONNECTOR}`);
    expected = gist(all.body.entries as Entry[]).filter(
      (e) => e.requestId === created || e.requestId === locked,
    );
    expect(expected.map((e) => e.change).sort()).toEqual([
      'account created',
      'account locked',
      'member added',
    ]);
  }, 120_000);

  it.each([FIRST, SECOND, 'SPELL.GRAPH@contoso.EXAMPLE', 'spell.graph'])(
    'the journal filtered by %s lists both requests, each entry under the spelling it was made with',
    async (spelling) => {
      for (const connector of [`connector=${CONNECTOR}&`, '']) {
        const answer = await t.api(
          'GET',
          `/api/journal?${connector}accountId=${encodeURIComponent(spelling)}`,
        );
        expect(answer.status).toBe(200);
        expect(gist(answer.body.entries)).toEqual(expected);
        expect(answer.body.entries[0]).not.toHaveProperty('accountKey');
      }
      const csv = await fetch(
        `${t.host.url}/api/journal?accountId=${encodeURIComponent(spelling)}`,
        { headers: { 'x-functions-key': t.host.apiKey, accept: 'text/csv' } },
      );
      const [header, ...rows] = parseCsv(await csv.text());
      expect(header).not.toContain('accountKey');
      const column = (name: string) => header!.indexOf(name);
      expect(
        rows.map((row) => ({
          requestId: row[column('requestId')],
          accountId: row[column('accountId')],
          change: row[column('change')],
        })),
      ).toEqual(expected);
    },
  );

  it.each([FIRST, SECOND, 'SPELL.GRAPH@contoso.EXAMPLE', 'spell.graph'])(
    'the request list filtered by %s lists both requests, each as it was spelled',
    async (spelling) => {
      for (const connector of [`connector=${CONNECTOR}&`, '']) {
        const answer = await t.api(
          'GET',
          `/api/requests?${connector}accountId=${encodeURIComponent(spelling)}`,
        );
        expect(answer.status).toBe(200);
        expect(
          answer.body.requests.map((r: { requestId: string; accountId: string }) => [
            r.requestId,
            r.accountId,
          ]),
        ).toEqual([
          [locked, SECOND],
          [created, FIRST],
        ]);
      }
    },
  );

  it('still finds rows written before rows carried the key, by the spelling that wrote them', async () => {
    const spelled = 'Old.Spelling@Contoso.example';
    const at = '2026-11-01T08:00:00.000Z';
    const journal = tableClient(storage.connection, TABLES.journal);
    await journal.createEntity({
      partitionKey: CONNECTOR,
      rowKey: `${at}_old-request:0:0`,
      key: 'old-request:0:0',
      connector: CONNECTOR,
      accountId: spelled,
      requestId: 'old-request',
      step: 0,
      change: 'account created',
      at,
    });
    const index = tableClient(storage.connection, TABLES.requests);
    const suffix = `${String(9_999_999_999_999 - Date.parse(at)).padStart(13, '0')}_old-request`;
    const row = {
      requestId: 'old-request',
      connector: CONNECTOR,
      accountId: spelled,
      actions: 'create',
      status: 'succeeded',
      source: 'http',
      receivedAt: at,
      finishedAt: at,
    };
    for (const rowKey of [suffix, `c~${CONNECTOR}~${suffix}`, `a~${spelled}~${suffix}`]) {
      await index.createEntity({ partitionKey: 'all', rowKey, ...row });
    }
    for (const connector of [`connector=${CONNECTOR}&`, '']) {
      const query = `${connector}accountId=${encodeURIComponent(spelled)}`;
      const entries = (await t.api('GET', `/api/journal?${query}`)).body.entries as Entry[];
      expect(gist(entries)).toEqual([
        { requestId: 'old-request', accountId: spelled, change: 'account created' },
      ]);
      const requests = (await t.api('GET', `/api/requests?${query}`)).body.requests;
      expect(requests).toEqual([expect.objectContaining({ ...row, actions: ['create'] })]);
    }
  });
});
