import { useApp } from '../app-context';
import { ApiError } from '../api-client';
import type { HealthReport, PartHealth } from '../api-types';
import { ConnectorHealthCard } from '../components/connector-health-card';
import { ErrorPanel } from '../components/error-panel';
import { PageHeading } from '../components/page-heading';
import { StatusBadge } from '../components/status-badge';
import { formatTime } from '../format';
import { parsePrometheusText, summarizeMetrics, type MetricsSummary } from '../prometheus-text';
import { usePolling, useResource } from '../use-resource';

/** How often the page reads health and metrics again. */
const REFRESH_MS = 15_000;

function Part({ name, part }: { name: string; part: PartHealth }) {
  return (
    <div>
      <dt>{name}</dt>
      <dd>
        <StatusBadge status={part.status} /> {part.detail}
        {part.error === undefined ? null : (
          <>
            {' '}
            <code>{part.error}</code>
          </>
        )}
      </dd>
    </div>
  );
}

/** The bulk queue's backlog and what was given up, from the metrics. */
function BulkQueue({ metrics }: { metrics: MetricsSummary }) {
  const poisoned = Object.entries(metrics.poisoned);
  return (
    <dl class="facts" aria-label="Bulk queue">
      <div>
        <dt>Waiting</dt>
        <dd>{metrics.backlog.requests ?? 'not read'}</dd>
      </div>
      <div>
        <dt>In the poison queue</dt>
        <dd>{metrics.backlog.poison ?? 'not read'}</dd>
      </div>
      <div>
        <dt>Given up since start</dt>
        <dd>
          {poisoned.length === 0
            ? 'none'
            : poisoned.map(([reason, n]) => `${reason.replace(/_/g, ' ')} ${n}`).join(' · ')}
        </dd>
      </div>
    </dl>
  );
}

/**
 * Health: storage, the secret store and each connector's last known state (GET /health),
 * with the numbers the host's meter recorded (GET /metrics, the local host; in Azure they
 * are in Application Insights and its workbook). Read again every 15 seconds.
 */
export function HealthPage() {
  const { api } = useApp();
  const health = useResource(() => api.get<HealthReport>('health'), []);
  const metrics = useResource(async (): Promise<MetricsSummary | null> => {
    try {
      return summarizeMetrics(parsePrometheusText(await api.getText('metrics', {}, 'text/plain')));
    } catch (error) {
      // No metrics route: the app runs in Azure, where the metrics go to Application Insights.
      if (error instanceof ApiError && error.status === 404) return null;
      throw error;
    }
  }, []);
  usePolling(
    () => {
      health.reload();
      metrics.reload();
    },
    REFRESH_MS,
    true,
  );
  const report = health.data;
  return (
    <>
      <PageHeading title="Health" />
      <ErrorPanel error={health.error} title="The health report could not be read" />
      <ErrorPanel error={metrics.error} title="The metrics could not be read" />
      {report === undefined ? (
        health.loading ? (
          <p>Reading the health report…</p>
        ) : null
      ) : (
        <>
          <section class="summary" aria-label="Service">
            <dl class="facts">
              <div>
                <dt>Status</dt>
                <dd aria-live="polite">
                  <StatusBadge status={report.status} />{' '}
                  <span class="muted">
                    checked <time dateTime={report.checkedAt}>{formatTime(report.checkedAt)}</time>
                  </span>
                </dd>
              </div>
              <Part name="Storage" part={report.storage} />
              <Part name="Secret store" part={report.secretStore} />
            </dl>
            {report.reasons.length === 0 ? null : (
              <ul aria-label="Why">
                {report.reasons.map((reason) => (
                  <li key={reason}>{reason}</li>
                ))}
              </ul>
            )}
          </section>
          <h2>Connectors</h2>
          <ul class="cards">
            {report.connectors.map((connector) => (
              <ConnectorHealthCard
                key={connector.name}
                connector={connector}
                numbers={metrics.data?.connectors.get(connector.name)}
              />
            ))}
          </ul>
        </>
      )}
      <h2>Bulk queue</h2>
      {metrics.data === null ? (
        <p>
          This service exports its metrics to Application Insights: see the workbook "Provisioning
          service" in Azure Monitor.
        </p>
      ) : metrics.data === undefined ? (
        <p class="muted">Reading the metrics…</p>
      ) : (
        <BulkQueue metrics={metrics.data} />
      )}
    </>
  );
}
