import { afterAll, describe, expect, it } from 'vitest';
import { localHostBanner } from '../../src/runtime/local-host/banner';
import { startTestHost, type TestHost } from './local-host-harness';
import { expectNoSecrets } from '../support/no-secrets';

/*
 * Issue 12, item 9: the local host prints its API key only when it made one. A key the
 * operator set in LOCAL_HOST_API_KEY stays out of the console; the curl examples name the
 * variable instead.
 */
const hosts: TestHost[] = [];
afterAll(async () => {
  await Promise.all(hosts.map((host) => host.close()));
});

async function start(env: Record<string, string> = {}): Promise<TestHost> {
  const host = await startTestHost(env);
  hosts.push(host);
  return host;
}

describe('the local host banner', () => {
  it('never prints a key that came from LOCAL_HOST_API_KEY, and its curls use the variable', async () => {
    const key = 'operator-set-key-0123456789';
    const t = await start({ LOCAL_HOST_API_KEY: key });
    expect(t.host.apiKeyGenerated).toBe(false);
    const banner = localHostBanner(t.host).join('\n');
    expectNoSecrets(banner, { 'API key': key }, 'the banner');
    // The service's curls; those that change a sandbox by hand use the sandbox's credentials.
    const curls = banner
      .split('\n')
      .filter((line) => line.includes('curl ') && line.includes(t.host.url));
    expect(curls.length).toBeGreaterThanOrEqual(3);
    for (const line of curls) expect(line).toContain('-H "x-functions-key: $LOCAL_HOST_API_KEY"');
    // The key still works: the banner only keeps it out of sight.
    expect((await t.api('GET', '/api/openapi.json', undefined, { key })).status).toBe(200);
  });

  it('prints the key it generated, in the curls too, since no one else knows it', async () => {
    const t = await start();
    expect(t.host.apiKeyGenerated).toBe(true);
    const banner = localHostBanner(t.host);
    expect(banner).toContain(`API key (header x-functions-key): ${t.host.apiKey}`);
    expect(banner).toContain(
      `Web console: ${t.host.url}/api/console/ (sign in with the API key below)`,
    );
    const curls = banner.filter((line) => line.includes('curl ') && line.includes(t.host.url));
    for (const line of curls) expect(line).toContain(`-H "x-functions-key: ${t.host.apiKey}"`);
  });

  it('shows the metrics and health routes, and each answers as the banner says', async () => {
    const t = await start();
    const banner = localHostBanner(t.host);
    const route = (label: string) => {
      const line = banner.find((l) => l.startsWith(label))!;
      return /(http:\/\/\S+)/.exec(line)![1]!;
    };
    const headers = { 'x-functions-key': t.host.apiKey };
    const metrics = await fetch(route('Metrics (Prometheus text):'), { headers });
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(await metrics.text()).toContain('# TYPE provisioning_');
    const health = await fetch(route('Health:'), { headers });
    expect(((await health.json()) as { status: string }).status).toBe('ok');
    const live = banner.find((l) => l.startsWith('Health:'))!.match(/no key: (\S+)\)/)![1]!;
    expect((await fetch(live)).status).toBe(200);
  });
});
