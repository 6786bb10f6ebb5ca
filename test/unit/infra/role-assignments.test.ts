import { describe, expect, it } from 'vitest';
import {
  bicepFiles,
  blockAfter,
  guidLiterals,
  readRepoFile,
  resourceDeclarations,
  topLevelKeys,
  type SourceFile,
} from './bicep-text';

/**
 * Azure built-in role definition IDs, as listed in "Azure built-in roles"
 * (learn.microsoft.com/azure/role-based-access-control/built-in-roles, checked 2026-04).
 * Roles the app must NOT get are listed too, so that swapping one in is caught by name.
 */
const BUILT_IN_ROLES: Record<string, string> = {
  'Storage Blob Data Owner': 'b7e6dc6d-f1e8-4753-8033-0f276bb0955b',
  'Storage Blob Data Contributor': 'ba92f5b4-2d11-453d-a403-e96b0029c9fe',
  'Storage Queue Data Contributor': '974c5e8b-45b9-4653-ba55-5f855dd0fb88',
  'Storage Table Data Contributor': '0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3',
  'Key Vault Secrets Officer': 'b86a8fe4-44ce-4948-aee5-eccb2c155cd7',
  'Key Vault Secrets User': '4633458b-17de-408a-b874-0445c86b69e6',
  'Monitoring Metrics Publisher': '3913510d-42f4-4e42-8a64-420c390055eb',
};

/** Every GUID literal whose comment does not name the documented role with that exact ID. */
function mislabelledGuids(files: SourceFile[]): string[] {
  const problems: string[] = [];
  for (const file of files) {
    for (const { guid, comment, line } of guidLiterals(file.text)) {
      const documented = BUILT_IN_ROLES[comment];
      if (documented === undefined) problems.push(`${file.path}:${line} ${guid} "${comment}"`);
      else if (documented !== guid) {
        problems.push(`${file.path}:${line} ${guid} is not ${comment} (${documented})`);
      }
    }
  }
  return problems;
}

interface Grant {
  role: string;
  principal: string;
  scope: string;
}

/** The role assignments of app/access.bicep as (role name, principal parameter, scope symbol). */
function grants(access: string): Grant[] {
  const roleIds = new Map<string, string>();
  for (const { guid, comment } of guidLiterals(blockAfter(access, 'var roles ='))) {
    roleIds.set(guid, comment);
  }
  const roleKeyToName = new Map<string, string>();
  const rolesBlock = blockAfter(access, 'var roles =');
  for (const key of topLevelKeys(rolesBlock)) {
    const guid = new RegExp(`${key}: '([0-9a-f-]{36})'`).exec(rolesBlock)?.[1] ?? '';
    roleKeyToName.set(key, roleIds.get(guid) ?? `unknown ${guid}`);
  }
  const loopRoles = [...blockAfter(access, 'var storageRoles =').matchAll(/roles\.(\w+)/g)].map(
    (m) => m[1] ?? '',
  );
  const found: Grant[] = [];
  for (const resource of resourceDeclarations(access)) {
    if (resource.type !== 'Microsoft.Authorization/roleAssignments') continue;
    const principal = /principalId: (\w+)/.exec(resource.body)?.[1] ?? '(none)';
    const scope = /scope: (\w+)/.exec(resource.body)?.[1] ?? '(deployment scope)';
    const keys = /for roleId in storageRoles/.test(resource.body)
      ? loopRoles
      : [/roleDefinitions', roles\.(\w+)\)/.exec(resource.body)?.[1] ?? '(none)'];
    for (const key of keys) {
      found.push({ role: roleKeyToName.get(key) ?? `unknown ${key}`, principal, scope });
    }
  }
  return found;
}

const access = readRepoFile('infra/app/access.bicep');

describe('role assignment GUIDs', () => {
  it('are each the documented built-in role ID of the role named in their comment', () => {
    const files = bicepFiles();
    expect(files.flatMap((f) => guidLiterals(f.text)).length).toBeGreaterThanOrEqual(5);
    expect(mislabelledGuids(files)).toEqual([]);
  });

  it('catches a GUID whose comment names another role, or no documented role', () => {
    const swapped: SourceFile = {
      path: 'swapped.bicep',
      text: [
        "  a: '4633458b-17de-408a-b874-0445c86b69e6' // Key Vault Secrets Officer",
        "  b: '974c5e8b-45b9-4653-ba55-5f855dd0a4b8' // Storage Queue Data Contributor",
        "  c: 'b7e6dc6d-f1e8-4753-8033-0f276bb0955b'",
      ].join('\n'),
    };
    expect(mislabelledGuids([swapped])).toEqual([
      'swapped.bicep:1 4633458b-17de-408a-b874-0445c86b69e6 is not Key Vault Secrets Officer (b86a8fe4-44ce-4948-aee5-eccb2c155cd7)',
      'swapped.bicep:2 974c5e8b-45b9-4653-ba55-5f855dd0a4b8 is not Storage Queue Data Contributor (974c5e8b-45b9-4653-ba55-5f855dd0fb88)',
      'swapped.bicep:3 b7e6dc6d-f1e8-4753-8033-0f276bb0955b ""',
    ]);
  });
});

describe('roles of the function app identity', () => {
  const appGrants = grants(access).filter((g) => g.principal === 'appPrincipalId');

  it('are exactly the data-plane roles the app needs, each on its own resource', () => {
    expect(appGrants.map((g) => `${g.role} on ${g.scope}`).sort()).toEqual([
      'Key Vault Secrets Officer on vault',
      'Monitoring Metrics Publisher on applicationInsights',
      'Storage Blob Data Owner on storage',
      'Storage Queue Data Contributor on storage',
      'Storage Table Data Contributor on storage',
    ]);
  });

  it('would show a broader role slipped in beside them', () => {
    const widened = access.replace(
      'roles.storageTableDataContributor\n]',
      'roles.storageTableDataContributor\n  roles.keyVaultSecretsOfficer\n]',
    );
    const roles = grants(widened)
      .filter((g) => g.principal === 'appPrincipalId' && g.scope === 'storage')
      .map((g) => g.role);
    expect(roles).toContain('Key Vault Secrets Officer');
  });

  it('leaves the operator only the right to enter secrets in this vault', () => {
    const operator = grants(access).filter((g) => g.principal === 'operatorPrincipalId');
    expect(operator).toEqual([
      { role: 'Key Vault Secrets Officer', principal: 'operatorPrincipalId', scope: 'vault' },
    ]);
    expect(access).toMatch(/operatorVaultRole[^\n]*= if \(!empty\(operatorPrincipalId\)\)/);
  });
});
