import type { StorageConnection } from '../../src/config/app-config';
import { startAzurite } from '../../src/runtime/local-host/azurite';

export interface TestStorage {
  connection: StorageConnection;
  close(): Promise<void>;
}

/** An in-process Azurite for one test file: start it in beforeAll, close it in afterAll. */
export async function startTestStorage(): Promise<TestStorage> {
  const azurite = await startAzurite();
  return {
    connection: { kind: 'connectionString', connectionString: azurite.connectionString },
    close: () => azurite.close(),
  };
}
