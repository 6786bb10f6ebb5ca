import { describe, expect, it } from 'vitest';
import { assessRoles, GRAPH_PERMISSIONS } from '../../../../src/connectors/graph/graph-permissions';

describe('assessRoles', () => {
  it('reports each task of the spec table, labelled as a hint', () => {
    const findings = assessRoles(['User.Read.All', 'GroupMember.ReadWrite.All']);
    expect(findings.map((finding) => [finding.name, finding.outcome])).toEqual([
      ['Read accounts', 'granted'],
      ['Create, change, lock, delete accounts', 'missing'],
      ['Read groups and group structure', 'granted'],
      ["Read an account's groups", 'missing'],
      ['Write memberships', 'granted'],
      ['Last logon', 'missing'],
    ]);
    expect(findings.every((finding) => finding.detail.startsWith('hint:'))).toBe(true);
    expect(findings[1]?.detail).toContain('User.ReadWrite.All');
  });

  it('counts a broader permission as granting the task', () => {
    const findings = assessRoles(['Directory.ReadWrite.All']);
    expect(findings.find((finding) => finding.name === 'Read accounts')).toMatchObject({
      outcome: 'granted',
      detail: expect.stringContaining('includes User.Read.All') as unknown,
    });
  });

  it('an empty roles claim grants nothing', () => {
    expect(assessRoles([]).every((finding) => finding.outcome === 'missing')).toBe(true);
    expect(assessRoles([])).toHaveLength(GRAPH_PERMISSIONS.length);
  });
});
