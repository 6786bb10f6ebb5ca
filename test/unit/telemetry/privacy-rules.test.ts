import { describe, expect, it } from 'vitest';
import {
  redactAccountText,
  redactSecretText,
  redactUrl,
  scrubAttributes,
} from '../../../src/telemetry/privacy-rules';
import { PrivacyLogProcessor } from '../../../src/telemetry/privacy-processors';
import { LoggerProvider } from '@opentelemetry/sdk-logs';

describe('privacy rules of exported telemetry', () => {
  it('redact credentials in text: HTTP credentials, JWTs, form and query secrets', () => {
    const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJhdWQiOiJodHRwczovL2dyYXBoIn0.c2lnbmF0dXJlLXZhbHVl';
    expect(redactSecretText(`Authorization: Bearer ${jwt}`)).toBe(
      'Authorization: Bearer [redacted]',
    );
    expect(redactSecretText('got Basic YWRtaW46UGxhbnRlZC1QYXNzd29yZA== back')).toBe(
      'got Basic [redacted] back',
    );
    expect(redactSecretText(`token ${jwt} expired`)).toBe('token [redacted] expired');
    expect(redactSecretText('grant_type=client_credentials&client_secret=Planted~Secret.9')).toBe(
      'grant_type=client_credentials&client_secret=[redacted]',
    );
    expect(redactSecretText('/api/requests?code=functionKey123&x=1')).toBe(
      '/api/requests?code=[redacted]&x=1',
    );
    expect(redactSecretText('nothing to see')).toBe('nothing to see');
    // Whatever the case: the text is looked at closely whenever a pattern could match it.
    expect(redactSecretText('sent bearer abcdef.ghijkl twice')).toBe(
      'sent bearer [redacted] twice',
    );
    expect(redactSecretText('PASSWORD=hunter22 in the form')).toBe(
      'PASSWORD=[redacted] in the form',
    );
    expect(redactSecretText(`a ${jwt}`)).toBe('a [redacted]');
  });

  it('drop the query of a URL, and its path unless account IDs may be exported', () => {
    const table =
      "https://st.table.core.windows.net/AccountLinks(PartitionKey='hr',RowKey='jane.doe')?sig=abc";
    expect(redactUrl(table, { accountIds: false })).toBe(
      'https://st.table.core.windows.net/AccountLinks(…)',
    );
    expect(redactUrl(table, { accountIds: true })).toBe(
      "https://st.table.core.windows.net/AccountLinks(PartitionKey='hr',RowKey='jane.doe')",
    );
    expect(
      redactUrl('https://user:pw@vault.example/secrets/pw-123/abc', { accountIds: false }),
    ).toBe('https://vault.example/secrets/…');
    expect(redactUrl('/api/requests?code=k', { accountIds: false })).toBe('/api/…');
  });

  it('remove credential attributes and account IDs, and reduce URLs, in place', () => {
    const attributes: Record<string, unknown> = {
      'http.request.header.authorization': ['Bearer abc.def.ghi'],
      'db.password': 'x',
      'provisioning.account_id': 'jane.doe',
      accountId: 'jane.doe',
      'url.full': 'https://graph.example/v1.0/users/jane.doe@contoso.com?$select=id',
      'url.query': '$filter=userPrincipalName eq jane',
      'url.path': '/v1.0/users/jane.doe@contoso.com',
      'exception.message': 'account "jane.doe" failed with Bearer eyJabcdefgh.eyJabcdefgh.sig',
      'provisioning.request_id': 'r-1',
      'http.response.status_code': 200,
    };
    scrubAttributes(attributes, { accountIds: false });
    expect(attributes).toEqual({
      'url.full': 'https://graph.example/v1.0/…',
      'url.path': '/v1.0/…',
      'exception.message': 'account "[account]" failed with Bearer [redacted]',
      'provisioning.request_id': 'r-1',
      'http.response.status_code': 200,
    });
  });

  it('keep account IDs where TELEMETRY_ACCOUNT_IDS allows them, never a credential', () => {
    const attributes: Record<string, unknown> = {
      'provisioning.account_id': 'jane.doe',
      'http.request.header.authorization': 'Basic YWRtaW46cHc=',
    };
    scrubAttributes(attributes, { accountIds: true });
    expect(attributes).toEqual({ 'provisioning.account_id': 'jane.doe' });
  });

  it('replace the accounts a message names, unless account IDs may be exported', () => {
    const off = { accountIds: false };
    expect(redactAccountText('account "jane.doe" not found on hr', off)).toBe(
      'account "[account]" not found on hr',
    );
    expect(redactAccountText('setPassword for account ID "x@contoso.com": user "Jane"', off)).toBe(
      'setPassword for account ID "[account]": user "[account]"',
    );
    expect(redactAccountText('userName eq "jane" refused', off)).toBe('userName eq "jane" refused');
    expect(redactAccountText('group "Sales" gone', off)).toBe('group "Sales" gone');
    expect(redactAccountText('account "jane.doe" not found', { accountIds: true })).toBe(
      'account "jane.doe" not found',
    );
  });

  it("keep the accounts a log line names out of the exported record's body", () => {
    const bodies: unknown[] = [];
    const provider = new LoggerProvider({
      processors: [
        new PrivacyLogProcessor({ accountIds: false }),
        {
          onEmit: (record) => void bodies.push(record.body),
          forceFlush: () => Promise.resolve(),
          shutdown: () => Promise.resolve(),
        },
      ],
    });
    provider
      .getLogger('test')
      .emit({ body: 'request r-1 failed: account "jane.doe" not found (Bearer abcdefgh.ijk)' });
    expect(bodies).toEqual([
      'request r-1 failed: account "[account]" not found (Bearer [redacted])',
    ]);
  });
});
