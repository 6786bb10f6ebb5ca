import { expect, it } from 'vitest';
import { TABLES } from '../../../src/runtime/build-services';
import { resourcesOfType } from './arm-snapshot';
import { describeCompiled, template } from './compiled-template';

describeCompiled('tables in the compiled template', () => {
  it('creates exactly the tables the service uses (src/runtime/build-services.ts)', () => {
    const tables = resourcesOfType(
      template().snapshot,
      'Microsoft.Storage/storageAccounts/tableServices/tables',
    ).map((table) => table.name.split('/').at(-1));
    expect(tables.sort()).toEqual(Object.values(TABLES).sort());
  });
});
