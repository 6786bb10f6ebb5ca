import { describe, expect, it } from 'vitest';
import { describeProblems, provisioningRequestSchema } from '../../../src/api/request-schema';
import { expectNoSecrets } from '../../support/no-secrets';

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

  // Names a directory allows (issue 12, item 7): the connectors escape them where they go.
  const NAMES = [
    'jane"doe',
    'C:\\Share Admins',
    "o'brien",
    'R&D #1 100% +plus',
    'Quote "Q" Group',
    'Zoë Ωmega 山田太郎 محمد',
    'party 🎉 team',
  ];

  it.each(NAMES)('accepts %j as account ID, display name and group name', (name) => {
    expect(
      problems({
        ...valid,
        account: { accountId: name, displayName: name, givenName: name, familyName: name },
        actions: [
          { type: 'create' },
          { type: 'grant', groups: [name, { name }, { id: name }] },
          { type: 'revoke', groups: [name] },
          { type: 'setMemberships', groups: [name] },
        ],
      }),
    ).toEqual([]);
  });

  it.each([
    ['jane\ndoe', /control characters \(U\+000A at position 5\)/],
    ['tab\there', /control characters \(U\+0009 at position 4\)/],
    ['del\u007f', /control characters \(U\+007F at position 4\)/],
    ['c1\u0085', /control characters \(U\+0085 at position 3\)/],
    ['half \ud83c', /not valid Unicode text \(an unpaired surrogate at position 6\)/],
    ['', /must not be empty/],
    ['   ', /must not be blank/],
    ['x'.repeat(257), /at most 256 characters/],
  ])('refuses %j everywhere a name goes, saying why', (name, reason) => {
    const found = problems({
      ...valid,
      account: { accountId: name, displayName: name },
      actions: [{ type: 'create' }, { type: 'grant', groups: [name, { id: name }] }],
    });
    expect(found.map((p) => p.path).sort()).toEqual([
      'account.accountId',
      'account.displayName',
      'actions.1.groups.0',
      'actions.1.groups.1.id',
    ]);
    for (const problem of found) expect(problem.message).toMatch(reason);
  });

  it('refuses an account ID with leading or trailing spaces: it would not be found again', () => {
    for (const accountId of [' jane', 'jane ']) {
      expect(problems({ ...valid, account: { accountId } })).toEqual([
        { path: 'account.accountId', message: expect.stringMatching(/start or end with spaces/) },
      ]);
    }
    // A group name must equal the target's exactly, spaces included.
    expect(
      problems({ ...valid, actions: [{ type: 'create' }, { type: 'grant', groups: [' Sales '] }] }),
    ).toEqual([]);
  });

  it('takes the caller context: who asked, why, and the case, any text but control characters', () => {
    expect(
      problems({
        ...valid,
        requestedBy: "o'brien@example.test",
        reason: 'joiner: "new hire" in 営業 🎉',
        correlationId: 'CHG-0042',
      }),
    ).toEqual([]);
    expect(
      problems({
        ...valid,
        requestedBy: 'x'.repeat(257),
        reason: 'line one\nline two',
        correlationId: '',
      }),
    ).toEqual([
      { path: 'requestedBy', message: 'requestedBy must be at most 256 characters' },
      {
        path: 'reason',
        message: expect.stringMatching(/^reason must not contain control characters \(U\+000A/),
      },
      { path: 'correlationId', message: 'correlationId must not be empty' },
    ]);
    expect(problems({ ...valid, reason: 'r'.repeat(1025) })).toEqual([
      { path: 'reason', message: 'reason must be at most 1024 characters' },
    ]);
  });

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

  it("refuses a poison record's redacted password sent back as it is", () => {
    expect(problems({ ...valid, password: '[redacted]' })).toEqual([
      {
        path: 'password',
        message:
          "password is the poison queue's redaction marker [redacted]: send the request's real password",
      },
    ]);
  });

  it('never repeats the password in a problem', () => {
    const found = problems({ ...valid, password: 'x'.repeat(300) + 'PLANTED' });
    expect(found).toHaveLength(1);
    expectNoSecrets(found, { 'end of the password': 'PLANTED' }, 'the problems');
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
