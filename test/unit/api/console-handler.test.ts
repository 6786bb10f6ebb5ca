import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { HttpRequest } from '@azure/functions';
import { afterAll, describe, expect, it } from 'vitest';
import { consoleHandler } from '../../../src/api/console-handler';

const dir = mkdtempSync(join(tmpdir(), 'console-'));
mkdirSync(join(dir, 'assets'));
writeFileSync(
  join(dir, 'index.html'),
  '<!doctype html><script type="module" src="/x.js"></script>',
);
writeFileSync(join(dir, 'assets', 'console.ABC123.js'), 'console.log("app");'.repeat(50));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const get = (path: string, headers: Record<string, string> = {}) =>
  consoleHandler(dir)(
    new HttpRequest({
      method: 'GET',
      url: `http://127.0.0.1/api/console/${path}`,
      params: { path },
      headers,
    }),
  );

const bodyOf = (body: unknown) => Buffer.from(body as Uint8Array);

describe('the console handler', () => {
  it('answers every page path with index.html, uncached, under a strict CSP', async () => {
    for (const path of ['', 'requests', 'connectors/graph/accounts/a%40b']) {
      const answer = await get(path);
      expect(answer.status).toBe(200);
      expect(bodyOf(answer.body).toString()).toContain('<!doctype html>');
      expect(answer.headers).toMatchObject({
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
        'x-frame-options': 'DENY',
        'referrer-policy': 'no-referrer',
      });
      const csp = (answer.headers as Record<string, string>)['content-security-policy'];
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
    }
  });

  it('serves a hashed asset for a year, gzipped when the browser takes it, 304 when unchanged', async () => {
    const plain = await get('assets/console.ABC123.js');
    expect(plain.headers).toMatchObject({
      'content-type': 'text/javascript; charset=utf-8',
      'cache-control': 'public, max-age=31536000, immutable',
    });
    const zipped = await get('assets/console.ABC123.js', { 'accept-encoding': 'gzip, br' });
    expect((zipped.headers as Record<string, string>)['content-encoding']).toBe('gzip');
    expect(gunzipSync(bodyOf(zipped.body)).equals(bodyOf(plain.body))).toBe(true);
    const etag = (plain.headers as Record<string, string>).etag!;
    expect((await get('assets/console.ABC123.js', { 'if-none-match': etag })).status).toBe(304);
  });

  it('answers 404 for a file that is not in the build, never index.html in its place', async () => {
    for (const path of ['assets/nope.js', 'assets/../index.html', 'assets/']) {
      const answer = await get(path);
      expect(answer.status).toBe(404);
      expect(answer.jsonBody).toMatchObject({ error: { code: 'NOT_FOUND' } });
    }
  });

  it('says so when the console was not built', async () => {
    const answer = await consoleHandler(join(dir, 'missing'))(
      new HttpRequest({ method: 'GET', url: 'http://127.0.0.1/api/console/', params: {} }),
    );
    expect(answer.status).toBe(404);
    expect(answer.jsonBody).toMatchObject({
      error: { message: expect.stringContaining('npm run build') },
    });
  });
});
