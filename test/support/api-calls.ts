import { HttpRequest, InvocationContext, type HttpResponseInit } from '@azure/functions';
import type { ApiDeps } from '../../src/api/api-deps';
import { apiRoutes } from '../../src/api/routes';
import type { ServiceBench } from './service-bench';

/** Calls one API route by name, as the host would: path parameters, query text, JSON body. */
export type ApiCall = (
  name: string,
  params?: Record<string, string>,
  options?: { query?: string; body?: unknown },
) => Promise<HttpResponseInit>;

/** The service's API routes over a service bench (its stores, its driver and its clock). */
export function benchApi(bench: ServiceBench, extra: Partial<ApiDeps> = {}): ApiCall {
  const deps: ApiDeps = {
    services: async () => bench.runtime.services,
    orchestrations: () => bench.runtime.driver,
    now: () => new Date(bench.clock.now()),
    ...extra,
  };
  return apiCaller(deps);
}

/** The API routes over the given dependencies. */
export function apiCaller(deps: ApiDeps): ApiCall {
  const routes = apiRoutes(deps);
  return async (name, params = {}, options = {}) => {
    const route = routes.find((candidate) => candidate.name === name);
    if (route === undefined) throw new Error(`no route named ${name}`);
    const path = route.route.replace(/\{(\w+)\}/g, (_, key: string) => params[key] ?? '');
    const request = new HttpRequest({
      method: route.method,
      url: `http://127.0.0.1:7071/api/${path}${options.query ?? ''}`,
      params,
      ...(options.body === undefined
        ? {}
        : {
            body: { string: JSON.stringify(options.body) },
            headers: { 'content-type': 'application/json' },
          }),
    });
    return route.handler(request, new InvocationContext({ functionName: name }));
  };
}
