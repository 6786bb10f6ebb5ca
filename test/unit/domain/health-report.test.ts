import { describe, expect, it } from 'vitest';
import { healthStatus, type ConnectorHealth } from '../../../src/domain/health-report';

const ok = { status: 'ok' as const, detail: 'read' };
const connector = (over: Partial<ConnectorHealth> = {}): ConnectorHealth => ({
  name: 'entra',
  kind: 'graph',
  expiringCredential: true,
  ...over,
});

describe('healthStatus', () => {
  it('is ok while nothing seen failed; a connector never checked is no reason', () => {
    expect(healthStatus({ storage: ok, secretStore: ok, connectors: [connector()] })).toEqual({
      status: 'ok',
      reasons: [],
    });
  });

  it('is degraded by a failed check, a failed import, an expired credential or the secret store', () => {
    const result = healthStatus({
      storage: ok,
      secretStore: { status: 'failing', detail: 'vault unreachable' },
      connectors: [
        connector({
          credential: {
            expiresOn: '2026-11-01T00:00:00Z',
            source: 'setting',
            daysLeft: -23,
            expired: true,
          },
          lastStatusCheck: { at: '2026-11-24T08:00:00Z', ok: false, summary: 'no token' },
          lastImport: { at: '2026-11-24T02:00:00Z', ok: false },
        }),
      ],
    });
    expect(result).toEqual({
      status: 'degraded',
      reasons: [
        'secret store: vault unreachable',
        'connector entra: its credential expired',
        'connector entra: the last status check failed',
        'connector entra: the last import failed',
      ],
    });
  });

  it('is failing while storage fails', () => {
    expect(
      healthStatus({
        storage: { status: 'failing', detail: 'tables unreachable' },
        secretStore: ok,
        connectors: [],
      }),
    ).toEqual({ status: 'failing', reasons: ['storage: tables unreachable'] });
  });
});
