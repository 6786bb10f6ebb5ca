import { describe, expect, it } from 'vitest';
import { parsePrometheusText, summarizeMetrics } from '../../../src/console/prometheus-text';

const TEXT = `# HELP provisioning_requests_total a request that ended
# TYPE provisioning_requests_total counter
provisioning_requests_total{provisioning_connector="entra",provisioning_outcome="succeeded",otel_scope_name="provisioning-service"} 7
provisioning_requests_total{provisioning_connector="entra",provisioning_outcome="failed",error_type="MEMBERSHIP_MISMATCH"} 2
provisioning_outbound_calls_total{provisioning_connector="entra",provisioning_status_class="2xx"} 40
provisioning_outbound_calls_total{provisioning_connector="entra",provisioning_status_class="4xx"} 3
provisioning_throttle_responses_total{provisioning_connector="entra"} 3
provisioning_throttle_wait_duration_sum{provisioning_connector="entra"} 4.5
provisioning_verification_reads_count{provisioning_connector="entra",provisioning_action="grant"} 4
provisioning_verification_reads_sum{provisioning_connector="entra",provisioning_action="grant"} 10
provisioning_verification_reads_bucket{provisioning_connector="entra",provisioning_action="grant",le="+Inf"} 4
provisioning_secret_time_to_expiry{provisioning_connector="entra"} 9.75
provisioning_bulk_backlog{provisioning_queue="requests"} 5
provisioning_bulk_backlog{provisioning_queue="poison"} 1
provisioning_bulk_poisoned_total{provisioning_poison_reason="not_json"} 1
odd_label{a="say \\"hi\\"\\nthere"} 1
not a sample
`;

describe('the Prometheus text format', () => {
  it('reads samples with their labels, escapes included, and skips the rest', () => {
    const samples = parsePrometheusText(TEXT);
    expect(samples).toHaveLength(14);
    expect(samples[0]).toEqual({
      name: 'provisioning_requests_total',
      labels: {
        provisioning_connector: 'entra',
        provisioning_outcome: 'succeeded',
        otel_scope_name: 'provisioning-service',
      },
      value: 7,
    });
    expect(samples.find((s) => s.name === 'odd_label')?.labels.a).toBe('say "hi"\nthere');
    expect(samples.find((s) => s.name.endsWith('_bucket'))?.labels.le).toBe('+Inf');
  });

  it("sums a connector's numbers as the Health page shows them", () => {
    const summary = summarizeMetrics(parsePrometheusText(TEXT));
    expect(summary.connectors.get('entra')).toEqual({
      requestsSucceeded: 7,
      requestsFailed: 2,
      failures: { MEMBERSHIP_MISMATCH: 2 },
      calls: { '2xx': 40, '4xx': 3 },
      throttled: 3,
      throttleWaitSeconds: 4.5,
      tokenFailures: 0,
      verifiedWrites: 4,
      verificationReads: 10,
      visibilitySeconds: 0,
      credentialDays: 9.75,
    });
    expect(summary.backlog).toEqual({ requests: 5, poison: 1 });
    expect(summary.poisoned).toEqual({ not_json: 1 });
  });
});
