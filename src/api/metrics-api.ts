import type { ApiHandler } from './guard-handler';

/** The content type of the Prometheus text exposition format. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * `GET /api/metrics` on the local host: every metric of the contract, as recorded by its
 * meter, in the Prometheus text format (the de facto convention for self-hosted scraping).
 * In Azure the same meter exports to Application Insights instead, and this route is absent.
 */
export function metricsHandler(metricsText: () => Promise<string>): ApiHandler {
  return async () => ({
    status: 200,
    headers: { 'content-type': PROMETHEUS_CONTENT_TYPE, 'cache-control': 'no-store' },
    body: await metricsText(),
  });
}
