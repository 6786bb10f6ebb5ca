import { SpanKind, trace } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { connectorTelemetry } from '../../../src/telemetry/connector-telemetry';
import { metricsUnderTest } from '../../support/collected-metrics';
import { captureTraces, type TraceCapture } from '../../support/trace-capture';

let capture: TraceCapture | undefined;
afterEach(async () => {
  await capture?.close();
  capture = undefined;
});

describe("a connector's telemetry", () => {
  it('makes each attempt a client span in the running trace, and sends that trace along', async () => {
    capture = captureTraces();
    const under = metricsUnderTest();
    const telemetry = connectorTelemetry(under.metrics, 'entra');
    const url = new URL(
      "https://graph.example/v1.0/users?$filter=userPrincipalName eq 'jane.doe@contoso.com'",
    );
    const parent = await trace
      .getTracer('test')
      .startActiveSpan('activity:readMemberships', async (span) => {
        const watch = telemetry.calls.attempt({ method: 'GET', url });
        watch.end({ status: 429, throttled: true });
        span.end();
        return { span, headers: watch.headers };
      });
    const traceId = parent.span.spanContext().traceId;
    expect(parent.headers.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    const client = capture.spans().find((s) => s.kind === SpanKind.CLIENT)!;
    expect(client.name).toBe('GET');
    expect(client.spanContext().traceId).toBe(traceId);
    expect(client.parentSpanContext?.spanId).toBe(parent.span.spanContext().spanId);
    expect(parent.headers.traceparent).toContain(client.spanContext().spanId);
    expect(client.attributes).toEqual({
      'http.request.method': 'GET',
      'server.address': 'graph.example',
      'server.port': 443,
      'url.scheme': 'https',
      'provisioning.connector': 'entra',
      'http.response.status_code': 429,
      'error.type': '429',
    });
    expect(JSON.stringify(capture.spans().map((s) => [s.name, s.attributes]))).not.toContain(
      'jane.doe',
    );
    const metrics = await under.collect();
    const value = (name: string) => metrics.find((m) => m.name === name)?.points;
    expect(value('provisioning.outbound.calls')).toEqual([
      {
        attributes: { 'provisioning.connector': 'entra', 'provisioning.status_class': '4xx' },
        value: 1,
      },
    ]);
    expect(value('provisioning.throttle.responses')?.[0]?.value).toBe(1);
    await under.close();
  });

  it('counts an attempt without an answer by why, and a failed sign-in by its code', async () => {
    const under = metricsUnderTest();
    const telemetry = connectorTelemetry(under.metrics, 'hr');
    telemetry.calls.attempt({ method: 'PATCH', url: new URL('http://127.0.0.1:9/x') }).end({
      failure: 'timeout',
    });
    telemetry.calls.callEnded(0);
    telemetry.calls.callEnded(1_500);
    telemetry.tokenFailed('GRAPH_CLIENT_SECRET_EXPIRED');
    const metrics = await under.collect();
    const points = (name: string) => metrics.find((m) => m.name === name)?.points;
    expect(points('provisioning.outbound.calls')?.[0]?.attributes).toEqual({
      'provisioning.connector': 'hr',
      'provisioning.status_class': 'timeout',
    });
    // A call that never waited on throttling adds no observation.
    expect(points('provisioning.throttle.wait.duration')).toEqual([
      { attributes: { 'provisioning.connector': 'hr' }, count: 1, sum: 1.5 },
    ]);
    expect(points('provisioning.token.failures')?.[0]?.attributes).toEqual({
      'provisioning.connector': 'hr',
      'error.type': 'GRAPH_CLIENT_SECRET_EXPIRED',
    });
    await under.close();
  });

  it('sends no trace context when no telemetry runs (no propagator registered)', () => {
    const under = metricsUnderTest();
    const watch = connectorTelemetry(under.metrics, 'hr').calls.attempt({
      method: 'GET',
      url: new URL('https://scim.example/scim/v2/Users'),
    });
    expect(watch.headers).toEqual({});
    watch.end({ status: 200, throttled: false });
  });
});
