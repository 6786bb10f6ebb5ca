import { describe, expect, it } from 'vitest';
import { isStorageCall } from '../../../src/telemetry/untraced-calls';

describe('isStorageCall: the service storage calls stay out of traces', () => {
  it.each([
    'provstore.table.core.windows.net',
    'provstore.queue.core.windows.net',
    'provstore.blob.core.windows.net',
    'PROVSTORE.TABLE.CORE.WINDOWS.NET',
    'provstore.table.core.chinacloudapi.cn',
    'provstore.queue.core.usgovcloudapi.net',
  ])('%s is storage', (hostname) => {
    expect(isStorageCall({ hostname })).toBe(true);
  });

  it('reads host with a port when hostname is absent', () => {
    expect(isStorageCall({ host: 'provstore.table.core.windows.net:443' })).toBe(true);
  });

  it.each([
    'graph.microsoft.com',
    'login.microsoftonline.com',
    'prov-kv.vault.azure.net',
    'scim.example.com',
    // A target whose name merely contains a storage host is a target.
    'provstore.table.core.windows.net.example.com',
    'dc.services.visualstudio.com',
  ])('%s is traced', (hostname) => {
    expect(isStorageCall({ hostname })).toBe(false);
  });

  it('traces a call whose host is unknown', () => {
    expect(isStorageCall({})).toBe(false);
  });
});
