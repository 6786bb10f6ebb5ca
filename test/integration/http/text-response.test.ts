import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isTimeout, mayHaveBeenSent } from '../../../src/connectors/http/network-failure';
import { requestText } from '../../../src/connectors/http/text-response';
import { startTestServer, type TestServer } from '../../support/http-server';

let server: TestServer;
let pool: Pool;

/** The answers, by path: raw control of headers, chunks and the socket. */
beforeAll(async () => {
  server = await startTestServer((req, res) => {
    switch (req.url) {
      case '/repeated':
        res.setHeader('X-Part', ['one', 'two']);
        res.setHeader('Content-Type', 'application/json');
        res.end('{"ok":true}');
        return;
      case '/bom-split': {
        // A byte order mark, then "é€" with both characters cut between two chunks.
        const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('"é€"')]);
        res.writeHead(200, { 'content-length': String(bytes.length) });
        res.write(bytes.subarray(0, 5));
        setTimeout(() => res.end(bytes.subarray(5)), 20);
        return;
      }
      case '/empty':
        res.writeHead(204);
        res.end();
        return;
      case '/cut':
        res.writeHead(200, { 'content-length': '100' });
        res.write('{"partial":');
        setTimeout(() => res.socket?.destroy(), 20);
        return;
      case '/stall':
        res.writeHead(200, { 'content-length': '10' });
        res.write('{');
        return;
      default:
        res.writeHead(404);
        res.end('no');
    }
  });
  pool = new Pool(server.url, { connections: 2 });
});

afterAll(async () => {
  await pool.close();
  await server.close();
});

/** What undici's own `request()` and `body.text()` make of the same answer, headers joined as the transport joins them. */
async function viaRequest(path: string) {
  const response = await pool.request({ method: 'GET', path });
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return { statusCode: response.statusCode, headers, text: await response.body.text() };
}

describe('requestText: an answer read whole, as request() and body.text() read it', () => {
  it.each(['/repeated', '/bom-split', '/empty', '/unknown'])(
    'reads %s as request() does: status, headers, text',
    async (path) => {
      const mine = await requestText(pool, { method: 'GET', path });
      const theirs = await viaRequest(path);

      expect({ ...mine, headers: withoutDate(mine.headers) }).toEqual({
        ...theirs,
        headers: withoutDate(theirs.headers),
      });
    },
  );

  it('joins a repeated header, drops a byte order mark and decodes characters cut between chunks', async () => {
    const repeated = await requestText(pool, { method: 'GET', path: '/repeated' });
    const split = await requestText(pool, { method: 'GET', path: '/bom-split' });

    expect(repeated.headers['x-part']).toBe('one, two');
    expect(repeated.headers['content-type']).toBe('application/json');
    expect(split.text).toBe('"é€"');
  });

  it('fails when the connection ends before the body did, as a call that may have been applied', async () => {
    const error: unknown = await requestText(pool, { method: 'GET', path: '/cut' }).catch(
      (caught: unknown) => caught,
    );

    expect(error).toBeInstanceOf(Error);
    expect(isTimeout(error)).toBe(false);
    expect(mayHaveBeenSent(error)).toBe(true);
  });

  it('fails as a timeout when the body stalls past bodyTimeout', async () => {
    const error: unknown = await requestText(pool, {
      method: 'GET',
      path: '/stall',
      bodyTimeout: 100,
    }).catch((caught: unknown) => caught);

    expect(isTimeout(error)).toBe(true);
  });
});

/** The headers but `date`, which two answers a moment apart may not share. */
function withoutDate(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => name !== 'date'));
}
