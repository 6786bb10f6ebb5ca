import { describe, expect, it } from 'vitest';
import { scimConnectorSchema } from '../../../src/connectors/scim/scim-settings';
import { silentLogger } from '../../../src/domain/logger';
import {
  scheduleImports,
  scheduleReconciliations,
} from '../../../src/runtime/local-host/connector-timers';

const connector = (name: string, importSchedule?: string, reconcileSchedule?: string) =>
  scimConnectorSchema.parse({
    name,
    kind: 'scim',
    baseUrl: 'http://127.0.0.1:1',
    auth: { type: 'none' },
    ...(importSchedule === undefined ? {} : { importSchedule }),
    ...(reconcileSchedule === undefined ? {} : { reconcileSchedule }),
  });

describe('local host import schedules', () => {
  it('runs the import timer of each connector with a schedule, and only those', async () => {
    const fired: string[] = [];
    const schedules = scheduleImports(
      [connector('every-second', '* * * * * *'), connector('never')],
      (name) => async () => {
        fired.push(name);
      },
      silentLogger,
    );
    try {
      expect(schedules.schedules.map((s) => s.connector)).toEqual(['every-second']);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      expect(fired).toContain('every-second');
      expect(fired).not.toContain('never');
    } finally {
      schedules.stop();
    }
  });
});

describe('local host reconciliation schedules', () => {
  it('runs the reconciliation timer of each connector with a reconcileSchedule, and only those', async () => {
    const fired: string[] = [];
    const schedules = scheduleReconciliations(
      [connector('imports-only', '* * * * * *'), connector('reconciled', undefined, '* * * * * *')],
      (name) => async () => {
        fired.push(name);
      },
      silentLogger,
    );
    try {
      expect(schedules.schedules.map((s) => s.connector)).toEqual(['reconciled']);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      expect(fired).toContain('reconciled');
      expect(fired).not.toContain('imports-only');
    } finally {
      schedules.stop();
    }
  });
});
