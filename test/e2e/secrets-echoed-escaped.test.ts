import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { escapeAs } from '../../src/sandbox/scim/password-echo';
import { startTestHost, type TestHost } from './local-host-harness';

let t: TestHost;
beforeAll(async () => {
  t = await startTestHost();
});
afterAll(async () => {
  await t?.close();
});

// A `/` (PHP's json_encode writes `\/`) and non-ASCII letters (`\u00fc` from PHP and Python).
const PASSWORD = 'Sümmer/2024!x-ß7f3e';

async function everythingTheServiceKept(): Promise<string> {
  const journal = await t.api('GET', '/api/journal?limit=1000');
  return [
    ...t.logs,
    JSON.stringify(t.host.driver.snapshot()),
    JSON.stringify(journal.body),
    ...t.answers,
  ].join('\n');
}

describe('a password a SCIM server echoes back JSON-escaped', () => {
  it.each(['php', 'python', 'every'] as const)(
    'reaches no error, report, history or log (%s escapes)',
    async (style) => {
      t.host.sandboxes!.scim.setQuirks({ passwordRefusedEchoed: style });
      const requestId = `echoed-${style}`;
      const submitted = await t.api('POST', '/api/requests', {
        requestId,
        connector: 'scim-sandbox',
        account: { accountId: `echoed.${style}` },
        password: PASSWORD,
        actions: [{ type: 'create' }, { type: 'setPassword' }],
      });
      expect(submitted.status).toBe(202);
      const report = await t.finished(requestId);
      expect(report.status).toBe('failed');
      const said = JSON.stringify(report);
      // The server's refusal does reach the report, with the password taken out of it.
      expect(said).toContain('is too weak');
      expect(said).toContain('[redacted]');

      const kept = await everythingTheServiceKept();
      expect(kept).toContain('is too weak');
      const forms = (['php', 'python', 'every'] as const).map((s) => escapeAs(PASSWORD, s));
      // Each spelling as sent, and as it reads once quoted again inside JSON (the history).
      for (const form of [
        PASSWORD,
        ...forms,
        ...forms.map((f) => JSON.stringify(f).slice(1, -1)),
      ]) {
        expect(kept.includes(form), `${form} found`).toBe(false);
      }
      // Nothing was stored by the server: the refusal is the truth.
      expect(t.host.sandboxes!.scim.getUser(`echoed.${style}`)).toBeUndefined();
    },
  );
});
