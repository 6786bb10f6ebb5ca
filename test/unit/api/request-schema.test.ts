import { describe, expect, it } from 'vitest';
import { describeProblems, provisioningRequestSchema } from '../../../src/api/request-schema';

const valid = {
  connector: 'hr',
  account: { accountId: 'jane.doe', displayName: 'Jane Doe', email: 'jane@example.com' },
  password: 'S3cret-pass!',
  actions: [
    { type: 'create' },
    { type: 'grant', groups: ['Sales', { id: 'g-1' }, { name: 'Finance' }] },
  ],
};

function problems(body: unknown) {
  const parsed = provisioningRequestSchema.safeParse(body);
  return parsed.success ? [] : describeProblems(parsed.error);
}

describe('provisioning request schema', () => {
  it('accepts a request with create, a password and groups named three ways', () => {
    expect(problems(valid)).toEqual([]);
  });

  it('names an unknown action and where it is', () => {
    expect(problems({ ...valid, actions: [{ type: 'create' }, { type: 'promote' }] })).toEqual([
      { path: 'actions.1.type', message: expect.stringContaining('unknown action "promote"') },
    ]);
  });

  it('lists every problem at once', () => {
    const found = problems({ connector: '', account: { accountId: '' }, actions: [], extra: 1 });
    const paths = found.map((p) => p.path);
    expect(paths).toEqual(
      expect.arrayContaining(['connector', 'account.accountId', 'actions', '(body)']),
    );
  });

  it.each(['jane"doe', 'jane\\doe', 'jane\ndoe', ' jane'])(
    'refuses the filter-breaking account ID %j',
    (accountId) => {
      expect(problems({ ...valid, account: { accountId } })).toEqual([
        { path: 'account.accountId', message: expect.stringMatching(/quotes|spaces/) },
      ]);
    },
  );

  it('keeps the order rules: create first, nothing after delete', () => {
    expect(
      problems({
        ...valid,
        password: undefined,
        actions: [{ type: 'lock' }, { type: 'create' }],
      })[0]?.message,
    ).toBe('create must be the first action, and only once');
    expect(
      problems({
        ...valid,
        password: undefined,
        actions: [{ type: 'delete' }, { type: 'grant', groups: ['A'] }],
      })[0]?.message,
    ).toBe('no action may follow delete');
  });

  it('needs a password for setPassword and refuses one nothing uses', () => {
    expect(problems({ ...valid, password: undefined, actions: [{ type: 'setPassword' }] })).toEqual(
      [{ path: 'password', message: 'setPassword needs a password' }],
    );
    expect(problems({ ...valid, actions: [{ type: 'lock' }] })).toEqual([
      {
        path: 'password',
        message: 'a password is only accepted with a create or setPassword action',
      },
    ]);
  });

  it('never repeats the password in a problem', () => {
    const found = problems({ ...valid, password: 'x'.repeat(300) + 'PLANTED' });
    expect(found).toHaveLength(1);
    expect(JSON.stringify(found)).not.toContain('PLANTED');
  });

  it('refuses a grant without groups but allows setMemberships to an empty set', () => {
    expect(
      problems({ ...valid, actions: [{ type: 'create' }, { type: 'grant', groups: [] }] }),
    ).toEqual([{ path: 'actions.1.groups', message: 'grant needs at least one group' }]);
    expect(
      problems({
        ...valid,
        password: undefined,
        actions: [{ type: 'setMemberships', groups: [] }],
      }),
    ).toEqual([]);
  });
});
