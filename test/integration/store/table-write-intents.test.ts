import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tableClient } from '../../../src/store/storage-clients';
import { TableWriteIntents } from '../../../src/store/table-write-intents';
import { startTestStorage, type TestStorage } from '../../support/azurite-storage';

let storage: TestStorage;
let intents: TableWriteIntents;

beforeAll(async () => {
  storage = await startTestStorage();
  intents = new TableWriteIntents(tableClient(storage.connection, 'Intents'));
});
afterAll(() => storage.close());

describe('TableWriteIntents', () => {
  it('tells a second run of the same write that the first one recorded it', async () => {
    expect(await intents.claim('a1b2c3')).toBe(false);
    expect(await intents.claim('a1b2c3')).toBe(true);
    expect(await intents.claim('a1b2c4')).toBe(false);
  });

  it('answers concurrent claims of one key once with "new"', async () => {
    const answers = await Promise.all(Array.from({ length: 5 }, () => intents.claim('ffee01')));
    expect(answers.filter((existed) => !existed)).toHaveLength(1);
  });
});
