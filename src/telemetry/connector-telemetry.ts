import {
  context,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
} from '@opentelemetry/api';
import type { ConnectorTelemetry } from '../connectors/connector-telemetry';
import type { AttemptEnd } from '../connectors/http/call-observer';
import { statusClassOf, type ServiceMetrics } from './service-metrics';
import { serviceTracer, SPAN_ATTRIBUTES } from './tracing';

/**
 * A connector's telemetry: each attempt to its target is a client span (a child of whatever
 * runs it: the activity in Azure) whose W3C trace context goes out with the call, and a
 * count of `provisioning.outbound.calls` by the class of its answer; throttling answers and
 * waits and failed sign-ins are counted too.
 *
 * The span carries the method, host and port, never the path or query: they hold account
 * IDs and group names (personal data), and the connector already names the target.
 */
export function connectorTelemetry(metrics: ServiceMetrics, connector: string): ConnectorTelemetry {
  const tracer = serviceTracer();
  const outboundCalls = metrics.outboundCalls(connector);
  // A connector calls one or two origins (its target, its token endpoint): the span's
  // attributes are made once per origin, not per attempt (the SDK copies them into the span).
  const attributesByOrigin = new Map<string, Readonly<Attributes>>();
  const attributesOf = (method: string, url: URL): Readonly<Attributes> => {
    const key = `${method} ${url.protocol}//${url.host}`;
    let attributes = attributesByOrigin.get(key);
    if (attributes === undefined) {
      attributes = Object.freeze({
        'http.request.method': method,
        'server.address': url.hostname,
        'server.port': Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
        'url.scheme': url.protocol.replace(':', ''),
        [SPAN_ATTRIBUTES.connector]: connector,
      });
      attributesByOrigin.set(key, attributes);
    }
    return attributes;
  };
  return {
    calls: {
      attempt({ method, url }) {
        // The running context is looked up once, for the span's parent and for what is sent.
        const running = context.active();
        const span = tracer.startSpan(
          method,
          { kind: SpanKind.CLIENT, attributes: attributesOf(method, url) },
          running,
        );
        const headers: Record<string, string> = {};
        propagation.inject(trace.setSpan(running, span), headers);
        return {
          headers,
          end(result: AttemptEnd) {
            if ('failure' in result) {
              outboundCalls(result.failure);
              span.setAttribute('error.type', result.failure);
              span.setStatus({ code: SpanStatusCode.ERROR });
            } else {
              outboundCalls(statusClassOf(result.status));
              if (result.throttled) metrics.throttled(connector);
              span.setAttribute('http.response.status_code', result.status);
              if (result.status >= 400) {
                span.setAttribute('error.type', String(result.status));
                span.setStatus({ code: SpanStatusCode.ERROR });
              }
            }
            span.end();
          },
        };
      },
      throttledInside(answers) {
        metrics.throttled(connector, answers);
      },
      callEnded(throttledWaitMs) {
        if (throttledWaitMs > 0) metrics.throttleWaited(connector, throttledWaitMs);
      },
    },
    tokenFailed(code) {
      metrics.tokenFailed(connector, code);
    },
  };
}
