import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localHostBanner } from '../../src/runtime/local-host/banner';
import { graphTestClient } from '../integration/sandbox/graph-test-client';
import {
  GRAPH_LAG,
  gist,
  graphAsReferenceSays,
  importCatalogues,
  provision,
  reconcile,
  report,
} from './drift-harness';
import { startTestHost, type TestHost } from './local-host-harness';

/*
 * Issue 18, item 5: `npm start` prints how to change each sandbox by hand. The SCIM command
 * it prints, sent as printed, and the Graph admin-center credentials it prints, used as a
 * person in the portal would, make changes the reconciliation then reports. Graph's replicas
 * lag, and the service's writes lose answers while it provisions, as graph-behaviour.md says.
 */
let t: TestHost;
let banner: string[];

beforeAll(async () => {
  t = await startTestHost();
  await importCatalogues(t);
  graphAsReferenceSays(t, { lostAnswers: true });
  for (const [connector, accountId] of [
    ['scim-sandbox', 'jane.doe'],
    ['graph-sandbox', 'jane.doe@contoso.example'],
  ]) {
    await provision(t, {
      connector,
      account: { accountId, displayName: 'Jane Doe' },
      actions: [{ type: 'create' }, { type: 'grant', groups: ['Engineering', 'Sales'] }],
    });
  }
  // The service's writes lost answers while it provisioned, as the header says.
  expect(t.host.sandboxes!.graph.faultCounts()['lost answer']).toBeGreaterThan(0);
  // The person at the portal is not the service: their answers are not lost (replicas lag).
  graphAsReferenceSays(t, { lostAnswers: false });
  t.clock.advanceBy(5 * 60_000);
  banner = localHostBanner(t.host);
}, 120_000);
afterAll(async () => {
  await t?.close();
});

describe('the changes by hand npm start prints', () => {
  it('the SCIM command, sent as printed, adds jane.doe to Finance: the report finds it', async () => {
    const line = banner.find((l) => l.includes('curl -s -X PATCH') && l.includes('/Groups/'));
    const parts = line?.match(
      /curl -s -X PATCH (\S+) -H "authorization: (Bearer \S+)" -H "content-type: (\S+)" -d '(.+)'$/,
    );
    expect(parts, line).not.toBeNull();
    const [, url, authorization, contentType, body] = parts!;
    const response = await fetch(url!, {
      method: 'PATCH',
      headers: { authorization: authorization!, 'content-type': contentType! },
      body: body!,
    });
    expect(response.status, await response.text()).toBeLessThan(300);
    expect(t.host.sandboxes!.scim.groupIdsOf('jane.doe')).toContain(
      t.host.sandboxes!.scimGroups['Finance'],
    );

    const result = await reconcile(t, 'scim-sandbox');
    expect(result.complete, JSON.stringify(result)).toBe(true);
    expect((await report(t, 'scim-sandbox', { status: 'open' })).map(gist)).toEqual([
      { type: 'memberAddedOutside', accountId: 'jane.doe', groupName: 'Finance' },
    ]);
  });

  it('the Graph admin-center app it prints locks jane.doe: the report finds it', async () => {
    const credentials = banner
      .find((l) => l.includes('client_id='))
      ?.match(/client_id=(\S+) --data-urlencode client_secret=(\S+) /);
    expect(credentials).not.toBeNull();
    const { graph } = t.host.sandboxes!;
    const portal = await graphTestClient(graph, {
      clientId: credentials![1]!,
      secret: credentials![2]!,
    });
    const locked = await portal.call('PATCH', '/users/jane.doe@contoso.example', {
      accountEnabled: false,
    });
    await portal.close();
    expect(locked).toMatchObject({ reset: false, status: 204 });
    expect(banner.join('\n')).toContain(`/v1.0/users/jane.doe@contoso.example`);
    // The sandbox's truth: the lock by hand took.
    const janeId = graph.userIdByUpn('jane.doe@contoso.example');
    expect(graph.getUser(janeId!)?.accountEnabled).toBe(false);
    // A lock a moment old is not on every replica yet: the run reads once it has spread.
    t.clock.advanceBy(GRAPH_LAG.max);

    const result = await reconcile(t, 'graph-sandbox');
    expect(result.complete, JSON.stringify(result)).toBe(true);
    const findings = (await report(t, 'graph-sandbox', { status: 'open' })).map(gist);
    expect(findings.filter((f) => f.type !== 'unlinkedMember')).toEqual([
      {
        type: 'accountStateChangedOutside',
        accountId: 'jane.doe@contoso.example',
        observedEnabled: false,
      },
    ]);
  });

  it('never prints the credentials the service itself uses', () => {
    const text = banner.join('\n');
    for (const [name, secret] of Object.entries(t.host.sandboxes!.secrets)) {
      // Says which secret, never the secret itself.
      expect(text.includes(secret), `the banner prints secret "${name}"`).toBe(false);
    }
  });
});
