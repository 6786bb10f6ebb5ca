import { describe, expect, it } from 'vitest';
import {
  describeDuration,
  holdCheckDelayMs,
  probeDelayMs,
  QUARANTINE_DEFAULTS,
  quarantineExpired,
  targetFailureMarkOf,
  targetFailureOf,
} from '../../../src/domain/quarantine';
import { TargetHealth } from '../../../src/domain/target-health';

describe('targetFailureOf: which failures fail every request', () => {
  it.each([
    ['TARGET_AUTH_FAILED', false, 'credentials'],
    ['SECRET_NOT_FOUND', false, 'credentials'],
    ['GRAPH_TOKEN_FAILED', false, 'credentials'],
    ['GRAPH_TOKEN_FAILED', true, 'authority'],
    ['TARGET_UNAVAILABLE', true, 'outage'],
    ['TARGET_UNREACHABLE', true, 'outage'],
    ['TARGET_TIMEOUT', true, 'outage'],
  ] as const)('%s (retryable %s) is %s', (code, retryable, kind) => {
    expect(targetFailureOf({ code, retryable })).toBe(kind);
  });

  it.each([
    'ACCOUNT_NOT_FOUND',
    'GROUP_NOT_FOUND',
    'TARGET_FORBIDDEN',
    'TARGET_THROTTLED',
    'SCIM_INVALID_VALUE',
    'GRAPH_PERMISSION_MISSING',
  ] as const)('%s is the request’s own', (code) => {
    expect(targetFailureOf({ code, retryable: false })).toBeUndefined();
  });

  it('reads the mark a connector call put on its error, and nothing from an unmarked one', () => {
    const error = { code: 'TARGET_AUTH_FAILED' as const, message: 'm', retryable: false };
    expect(targetFailureMarkOf(error)).toBeUndefined();
    expect(
      targetFailureMarkOf({
        ...error,
        details: { targetFailure: { kind: 'credentials', quarantines: true } },
      }),
    ).toEqual({ kind: 'credentials', quarantines: true });
  });
});

describe('TargetHealth: one worker’s count', () => {
  const settings = { ...QUARANTINE_DEFAULTS, failureThreshold: 3, failureWindowSeconds: 60 };
  const health = () => new TargetHealth(() => settings);

  it('quarantines at once for refused credentials and a failing token authority', () => {
    expect(health().failed('hr', 'credentials', 0)).toBe(true);
    expect(health().failed('hr', 'authority', 0)).toBe(true);
  });

  it('quarantines on the threshold of outage failures in a row, each within the window', () => {
    const h = health();
    expect([0, 30_000, 60_000].map((at) => h.failed('hr', 'outage', at))).toEqual([
      false,
      false,
      true,
    ]);
  });

  it('starts again after any answer of the target, or a gap wider than the window', () => {
    const h = health();
    h.failed('hr', 'outage', 0);
    h.failed('hr', 'outage', 1_000);
    h.answered('hr');
    expect(h.failed('hr', 'outage', 2_000)).toBe(false);
    expect(h.failed('hr', 'outage', 3_000)).toBe(false);
    expect(h.failed('hr', 'outage', 64_000)).toBe(false);
    expect(h.failed('hr', 'outage', 65_000)).toBe(false);
    expect(h.failed('hr', 'outage', 66_000)).toBe(true);
  });

  it('counts each connector apart, and never quarantines one whose quarantine is off', () => {
    const off = new TargetHealth((name) =>
      name === 'off' ? { ...settings, enabled: false } : settings,
    );
    expect(off.failed('off', 'credentials', 0)).toBe(false);
    off.failed('a', 'outage', 0);
    off.failed('a', 'outage', 1);
    expect(off.failed('b', 'outage', 2)).toBe(false);
    expect(off.failed('a', 'outage', 3)).toBe(true);
  });
});

describe('probe and check times', () => {
  it('doubles the probe interval from the first, up to the most', () => {
    const delays = [0, 1, 2, 3, 7, 8, 30].map((probe) => probeDelayMs(probe, QUARANTINE_DEFAULTS));
    expect(delays).toEqual([30_000, 60_000, 120_000, 240_000, 3_600_000, 3_600_000, 3_600_000]);
  });

  it('checks just after the next probe, at least 5 s and at most 30 s growing to 10 minutes away', () => {
    const now = 1_000_000;
    expect(holdCheckDelayMs(0, now + 20_000, now)).toBe(25_000);
    expect(holdCheckDelayMs(0, now + 3_600_000, now)).toBe(30_000);
    expect(holdCheckDelayMs(5, now + 3_600_000, now)).toBe(91_553);
    expect(holdCheckDelayMs(40, now + 3_600_000, now)).toBe(600_000);
    expect(holdCheckDelayMs(3, now - 60_000, now)).toBe(5_000);
  });

  it('describes durations as an operator reads them', () => {
    expect([42_000, 60_000, 380_000, 3_600_000, 5_400_000].map(describeDuration)).toEqual([
      '42 s',
      '1 min',
      '6 min 20 s',
      '1 h',
      '1 h 30 min',
    ]);
  });
});

describe('quarantineExpired', () => {
  it('names the connector, since when, why, how long it held, and what to do', () => {
    const error = quarantineExpired(
      {
        connector: 'hr app',
        since: '2026-11-23T08:00:00.000Z',
        reason: { code: 'TARGET_AUTH_FAILED', message: 'answered 401' },
      },
      86_400_000,
      24,
    );
    expect(error).toMatchObject({
      code: 'CONNECTOR_QUARANTINED',
      object: 'hr app',
      details: { heldMs: 86_400_000, since: '2026-11-23T08:00:00.000Z' },
    });
    expect(error.message).toContain(
      'quarantined since 2026-11-23T08:00:00.000Z (TARGET_AUTH_FAILED: answered 401)',
    );
    expect(error.message).toContain('held 24 h, past the limit of 24 h');
    expect(error.message).toContain('POST /api/connectors/hr%20app/release');
  });
});
