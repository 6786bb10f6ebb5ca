import { HttpRequest, InvocationContext } from '@azure/functions';
import { describe, expect, it } from 'vitest';
import { guardHandler } from '../../../src/api/guard-handler';
import { ProvisioningError } from '../../../src/domain/errors';

const request = () => new HttpRequest({ method: 'GET', url: 'http://127.0.0.1/api/journal' });

function context(logged: string[]) {
  return new InvocationContext({ logHandler: (_level, ...args) => logged.push(args.join(' ')) });
}

describe('guardHandler', () => {
  it('answers an unanswered retryable failure with 503 and its code', async () => {
    const guarded = guardHandler('journal', async () => {
      throw new ProvisioningError('TARGET_UNAVAILABLE', 'storage answered 503', {
        retryable: true,
      });
    });
    const response = await guarded(request(), context([]));
    expect(response.status).toBe(503);
    expect(response.jsonBody).toMatchObject({
      error: { code: 'TARGET_UNAVAILABLE', message: 'storage answered 503' },
    });
  });

  it('maps a not-found code to 404', async () => {
    const guarded = guardHandler('x', async () => {
      throw new ProvisioningError('SECRET_NOT_FOUND', 'secret "a" not found');
    });
    expect((await guarded(request(), context([]))).status).toBe(502);
    const notFound = guardHandler('x', async () => {
      throw new ProvisioningError('ACCOUNT_NOT_FOUND', 'account "a" not found');
    });
    expect((await notFound(request(), context([]))).status).toBe(404);
  });

  it('hides the cause of an unexpected failure from the caller and logs it', async () => {
    const logged: string[] = [];
    const guarded = guardHandler('journal', async () => {
      throw new Error('internal state 7f3a broke');
    });
    const response = await guarded(request(), context(logged));
    expect(response.status).toBe(500);
    expect(JSON.stringify(response.jsonBody)).not.toContain('7f3a');
    expect(logged.join()).toContain('unexpected failure');
  });

  it('answers a path segment that is not percent-encoded UTF-8 with 400, before the handler runs', async () => {
    let ran = false;
    const guarded = guardHandler('getAccount', async () => {
      ran = true;
      return { status: 200 };
    });
    const raw = new HttpRequest({
      method: 'GET',
      url: 'http://127.0.0.1/api/connectors/entra/accounts/%ED%A0%80',
      params: { name: 'entra', accountId: '%ED%A0%80' },
    });
    const response = await guarded(raw, context([]));
    expect(response.status).toBe(400);
    expect(response.jsonBody).toMatchObject({
      error: { code: 'PATH_SEGMENT_INVALID', object: '%ED%A0%80' },
    });
    expect(ran).toBe(false);
  });

  it('answers a route parameter the host decoded into something no caller sent as text with 400', async () => {
    const guarded = guardHandler('getAccount', async () => ({ status: 200 }));
    for (const accountId of ['\uD800', 'a\uFFFD']) {
      const decoded = new HttpRequest({
        method: 'GET',
        url: 'http://127.0.0.1/api/connectors/entra/accounts/x',
        params: { name: 'entra', accountId },
      });
      const response = await guarded(decoded, context([]));
      expect(response.status).toBe(400);
      expect(response.jsonBody).toMatchObject({ error: { code: 'PATH_SEGMENT_INVALID' } });
      expect(JSON.stringify(response.jsonBody)).toContain('path parameter \\"accountId\\"');
    }
  });
});
