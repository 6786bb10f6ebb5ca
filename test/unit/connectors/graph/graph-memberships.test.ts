import { describe, expect, it } from 'vitest';
import { writeOutcome } from '../../../../src/connectors/graph/graph-memberships';
import { isGroupObject } from '../../../../src/connectors/graph/graph-objects';
import { readRolesClaim } from '../../../../src/connectors/graph/token-provider';

const graphError = (code: string) => ({ error: { code, message: 'any text' } });

describe('writeOutcome', () => {
  it('a 204 is applied: the write itself changed it', () => {
    expect(writeOutcome({ status: 204, body: undefined }, 'added')).toBe('applied');
    expect(writeOutcome({ status: 204, body: undefined }, 'removed')).toBe('applied');
  });

  const ADDED_ALREADY =
    "One or more added object references already exist for the following modified properties: 'members'.";
  const REMOVED_ALREADY =
    "One or more removed object references do not exist for the following modified properties: 'members'.";
  const said = (code: string, message: string) => ({ error: { code, message } });

  it('"already a member" on add only when Graph says the added reference already exists', () => {
    expect(
      writeOutcome({ status: 400, body: said('Request_BadRequest', ADDED_ALREADY) }, 'added'),
    ).toBe('already');
    const dynamic =
      'Members of a group with a dynamic membership rule are managed by the rule and cannot be added or removed.';
    expect(
      writeOutcome({ status: 400, body: said('Request_BadRequest', dynamic) }, 'added'),
    ).toBeUndefined();
    expect(writeOutcome({ status: 400, body: graphError('Request_BadRequest') }, 'added')).toBe(
      undefined,
    );
  });

  it('"not a member" on remove: Graph\'s word on the removed reference is already so; a bare 404 needs reads; another 400 fails', () => {
    expect(
      writeOutcome({ status: 400, body: said('Request_BadRequest', REMOVED_ALREADY) }, 'removed'),
    ).toBe('already');
    expect(
      writeOutcome(
        { status: 404, body: said('Request_ResourceNotFound', REMOVED_ALREADY) },
        'removed',
      ),
    ).toBe('already');
    expect(
      writeOutcome({ status: 404, body: graphError('Request_ResourceNotFound') }, 'removed'),
    ).toBe('notFound');
    expect(
      writeOutcome({ status: 400, body: graphError('Request_BadRequest') }, 'removed'),
    ).toBeUndefined();
    // Graph's "already" words under another status or code are not Graph's "already".
    expect(
      writeOutcome(
        { status: 403, body: said('Authorization_RequestDenied', ADDED_ALREADY) },
        'added',
      ),
    ).toBeUndefined();
  });

  it('a 404 on add names a member Graph does not know (yet): a new account may 404 to writes', () => {
    expect(
      writeOutcome({ status: 404, body: graphError('Request_ResourceNotFound') }, 'added'),
    ).toBe('accountNotFound');
  });

  it('anything else is a failure', () => {
    expect(
      writeOutcome({ status: 403, body: graphError('Authorization_RequestDenied') }, 'added'),
    ).toBeUndefined();
    expect(
      writeOutcome({ status: 429, body: graphError('TooManyRequests') }, 'removed'),
    ).toBeUndefined();
  });
});

describe('isGroupObject', () => {
  it('keeps groups and drops directory roles and administrative units (spec 7)', () => {
    const objects = [
      { '@odata.type': '#microsoft.graph.group', id: 'g' },
      { '@odata.type': '#microsoft.graph.directoryRole', id: 'r' },
      { '@odata.type': '#microsoft.graph.administrativeUnit', id: 'a' },
    ];
    expect(objects.filter(isGroupObject).map((object) => object.id)).toEqual(['g']);
  });
});

describe('readRolesClaim', () => {
  it('reads the roles claim, tells a token without one from a token it cannot read', () => {
    const encode = (payload: object) =>
      `e30.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.sig`;
    expect(readRolesClaim(encode({ roles: ['User.Read.All', 7] }))).toEqual({
      kind: 'roles',
      roles: ['User.Read.All'],
    });
    expect(readRolesClaim(encode({ appid: 'x' }))).toEqual({ kind: 'absent' });
    expect(readRolesClaim('not a jwt')).toEqual({ kind: 'unreadable' });
  });
});
