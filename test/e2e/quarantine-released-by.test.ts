import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from './local-host-harness';

/*
 * An operator's release of a quarantine records who released it, as a request records who
 * submitted it: the signed-in principal's name, or the key ("local API key" on the local
 * host), never the key itself. Judged by the quarantine's stored row (read from the table
 * by a store of its own), then by where an operator looks: the quarantine and health.
 */

const CONNECTOR = 'scim-sandbox';

let t: TestHost;
beforeAll(async () => {
  t = await startTestHost({}, { signedInCallers: true });
});
afterAll(async () => {
  await t?.close();
});

/** The `x-ms-client-principal` App Service Authentication sends for a signed-in operator. */
const principal = (name: string) =>
  Buffer.from(
    JSON.stringify({
      auth_typ: 'aad',
      name_typ: 'name',
      role_typ: 'roles',
      claims: [
        { typ: 'name', val: name },
        { typ: 'roles', val: 'Provisioning.Operator' },
      ],
    }),
  ).toString('base64');

/** Quarantines the connector in its stored row, as a worker that met a refused token does. */
async function quarantine(): Promise<void> {
  const at = new Date(t.clock.now()).toISOString();
  await t.host.services.quarantine.enter(CONNECTOR, {
    at,
    reason: { code: 'TARGET_AUTH_FAILED', message: 'the server refused the bearer token (401)' },
    nextProbeAt: new Date(t.clock.now() + 3_600_000).toISOString(),
  });
}

/** The stored row, read past every cache. */
async function stored() {
  return t.host.services.quarantine.get(CONNECTOR, { maxAgeMs: 0 });
}

describe("an operator's release of a quarantined connector", () => {
  it('records the signed-in principal who released it, shown by the quarantine and health', async () => {
    await quarantine();
    const response = await fetch(`${t.host.url}/api/signed-in/connectors/${CONNECTOR}/release`, {
      method: 'POST',
      headers: {
        'x-ms-client-principal': principal('carol@contoso.example'),
        'content-type': 'application/json',
      },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ released: true });

    expect(await stored()).toMatchObject({
      quarantined: false,
      releasedBy: 'operator',
      releasedByName: 'carol@contoso.example',
    });
    const view = await t.api('GET', `/api/connectors/${CONNECTOR}/quarantine`);
    expect(view.body).toMatchObject({
      state: 'active',
      releasedBy: 'operator',
      releasedByName: 'carol@contoso.example',
    });
    const health = await t.api('GET', '/api/health');
    const listed = (health.body.connectors as { name: string; quarantine?: unknown }[]).find(
      (connector) => connector.name === CONNECTOR,
    );
    expect(listed?.quarantine).toMatchObject({
      state: 'active',
      releasedBy: 'operator',
      releasedByName: 'carol@contoso.example',
    });
  });

  it('records a key holder as the key it used, never the key', async () => {
    await quarantine();
    expect(await stored()).toMatchObject({ quarantined: true });
    const released = await t.api('POST', `/api/connectors/${CONNECTOR}/release`);
    expect(released.status).toBe(200);

    const state = await stored();
    expect(state).toMatchObject({ releasedBy: 'operator', releasedByName: 'local API key' });
    expect(JSON.stringify(state)).not.toContain(t.host.apiKey);
    const health = await t.api('GET', '/api/health');
    expect(health.text).toContain('"releasedByName":"local API key"');
    expect(health.text).not.toContain(t.host.apiKey);
  });

  it('records nothing of a release that found no quarantine', async () => {
    const before = await stored();
    const response = await fetch(`${t.host.url}/api/signed-in/connectors/${CONNECTOR}/release`, {
      method: 'POST',
      headers: {
        'x-ms-client-principal': principal('mallory@contoso.example'),
        'content-type': 'application/json',
      },
    });
    expect(await response.json()).toMatchObject({ released: false });
    expect(await stored()).toEqual(before);
  });
});
