import { HttpRequest, InvocationContext } from '@azure/functions';
import { describe, expect, it } from 'vitest';
import type { ApiDeps } from '../../../src/api/api-deps';
import { apiRoutes } from '../../../src/api/routes';

const deps = {
  services: () => Promise.reject(new Error('not used')),
  orchestrations: () => {
    throw new Error('not used');
  },
  now: () => new Date(),
} satisfies ApiDeps;

describe('the OpenAPI document', () => {
  it('describes every operation the API serves, with the app role it needs', async () => {
    const routes = apiRoutes(deps).filter((route) => route.authLevel === 'function');
    const openApi = routes.find((route) => route.name === 'openApi')!;
    const answer = await openApi.handler(
      new HttpRequest({ method: 'GET', url: 'http://127.0.0.1/api/openapi.json', params: {} }),
      new InvocationContext(),
    );
    const paths = (
      answer.jsonBody as { paths: Record<string, Record<string, Record<string, unknown>>> }
    ).paths;
    for (const route of routes.filter((r) => r.name !== 'openApi')) {
      const operation = paths[`/${route.route}`]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} /${route.route}`).toBeDefined();
      expect(operation!['x-app-role'], route.name).toMatch(/^Provisioning\.(Reader|Operator)$/);
    }
    expect(paths['/requests']!.post!['x-app-role']).toBe('Provisioning.Operator');
    expect(paths['/connectors/{name}/imports']!.post!['x-app-role']).toBe('Provisioning.Operator');
    expect(paths['/connectors/{name}/status']!.post!['x-app-role']).toBe('Provisioning.Reader');
  });
});
