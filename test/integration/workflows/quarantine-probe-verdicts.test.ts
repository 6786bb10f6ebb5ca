import { describe, expect, it } from 'vitest';
import { quarantineActivities } from '../../../src/workflows/activities/quarantine-activities';
import { SCIM, useServiceBench } from '../../support/service-bench';

/*
 * Issue 14, Quarantine, and DESIGN invariant 11: the probe releases a quarantined connector
 * only on the target's own healthy answer to it (for SCIM, a ListResponse to its search).
 * A 429, the application's 403 or a gateway's HTML 404 keep the quarantine, and the
 * connector's state says why; the server's own answer then releases it.
 */
const bench = useServiceBench({
  // One retry, and a throttle waited out for a second at most: the probe's answer is judged.
  connectorSettings: (settings) =>
    settings.name === SCIM ? { ...settings, maxRetries: 1, maxThrottleWaitSeconds: 1 } : settings,
});

async function quarantined() {
  const at = new Date(bench.clock.now()).toISOString();
  const state = await bench.runtime.services.quarantine.enter(SCIM, {
    at,
    reason: { code: 'TARGET_UNAVAILABLE', message: 'the target answered 503' },
    nextProbeAt: at,
  });
  return { epoch: state.epoch, at };
}

async function probe(input: { epoch: number; at: string }) {
  const activities = quarantineActivities(() => Promise.resolve(bench.runtime.services));
  const answer = await activities.probeConnector({ connector: SCIM, ...input });
  const state = await bench.runtime.services.quarantine.get(SCIM);
  return { answer, state };
}

describe('the quarantine probe of a SCIM connector', () => {
  it.each([
    {
      what: 'a 429 (throttled)',
      misbehave: () => bench.sandboxes.scim.injectThrottle(100, '1'),
      code: 'TARGET_THROTTLED',
      why: /answered 429: throttled, so the target is not shown healthy yet/,
    },
    {
      what: "the application's 403",
      misbehave: () => bench.sandboxes.scim.injectForbidden(100),
      code: 'TARGET_FORBIDDEN',
      why: /answered 403: refused, so the target is not shown to serve the service/,
    },
    {
      what: "a gateway's HTML 404",
      misbehave: () => bench.sandboxes.scim.injectProxyNotFound('/Users', 'html'),
      code: 'TARGET_RESPONSE_INVALID',
      why: /answered 404 \(text\/html, not a SCIM error\): not the target's own answer to the probe/,
    },
    {
      what: 'an empty 404',
      misbehave: () => bench.sandboxes.scim.injectProxyNotFound('/Users', 'empty'),
      code: 'TARGET_RESPONSE_INVALID',
      why: /answered 404 \(no content type, not a SCIM error\)/,
    },
  ])(
    "keeps the quarantine on $what, says why, and releases on the server's own answer",
    async (c) => {
      const { scim } = bench.sandboxes;
      const input = await quarantined();
      c.misbehave();
      const kept = await probe(input);
      scim.clearInjected();

      expect(kept.answer).toMatchObject({ ok: true, value: { done: false } });
      expect(kept.state).toMatchObject({
        quarantined: true,
        probes: 1,
        lastError: { code: c.code, message: expect.stringMatching(c.why) as unknown },
      });
      expect(kept.state?.lastError.message).toContain(`connector "${SCIM}"`);

      const later = { ...input, at: kept.state!.nextProbeAt };
      const released = await probe(later);
      expect(released.answer).toMatchObject({ ok: true, value: { done: true, released: true } });
      expect(released.state).toMatchObject({ quarantined: false, releasedBy: 'probe' });
    },
  );

  it('takes a SCIM 404 to its search (a server that answers an empty filter so) as healthy', async () => {
    const { scim } = bench.sandboxes;
    const input = await quarantined();
    scim.setQuirks({ lastLogonAttribute: 'lastLogin', notFoundOnEmptyFilter: true });
    try {
      const { answer, state } = await probe(input);
      expect(answer).toMatchObject({ ok: true, value: { done: true, released: true } });
      expect(state).toMatchObject({ quarantined: false, releasedBy: 'probe' });
    } finally {
      scim.setQuirks({ lastLogonAttribute: 'lastLogin' });
    }
  });
});
