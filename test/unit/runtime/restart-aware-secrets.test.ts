import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RestartAwareSecrets } from '../../../src/runtime/local-host/restart-aware-secrets';
import { LocalSecretStore } from '../../../src/secrets/local-secret-store';
import { expectNoSecrets } from '../../support/no-secrets';

const folders: string[] = [];
afterAll(async () => {
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

describe('RestartAwareSecrets', () => {
  it('keeps names, never values, and says SECRET_LOST for a secret set before a restart and not deleted', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'secret-names-'));
    folders.push(folder);
    const file = join(folder, 'secret-names.json');
    const before = new RestartAwareSecrets(new LocalSecretStore({ configured: 'c' }), file);
    await before.set('pw-used', 'Planted-Pw-1');
    await before.set('pw-pending', 'Planted-Pw-2');
    expect(await before.get('pw-pending')).toBe('Planted-Pw-2');
    await before.delete('pw-used');
    expectNoSecrets(
      await readFile(file, 'utf8'),
      { 'pw-used': 'Planted-Pw-1', 'pw-pending': 'Planted-Pw-2' },
      'the names file',
    );

    // The process ends; the in-memory values with it.
    const after = new RestartAwareSecrets(new LocalSecretStore({ configured: 'c' }), file);
    await expect(after.get('pw-pending')).rejects.toMatchObject({ code: 'SECRET_LOST' });
    // Deleted by the run that used it: gone as before, which a repeated run takes as done.
    await expect(after.get('pw-used')).rejects.toMatchObject({ code: 'SECRET_NOT_FOUND' });
    expect(await after.get('configured')).toBe('c');
    await after.delete('pw-pending');
    await expect(after.get('pw-pending')).rejects.toMatchObject({ code: 'SECRET_NOT_FOUND' });
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual([]);
  });
});
