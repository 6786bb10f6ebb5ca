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

  it('"already a member" (400 Request_BadRequest) on add says it was already so', () => {
    expect(writeOutcome({ status: 400, body: graphError('Request_BadRequest') }, 'added')).toBe(
      'already',
    );
  });

  it('"not a member" (404 Request_ResourceNotFound or 400 Request_BadRequest) on remove says it was already so', () => {
    expect(
      writeOutcome({ status: 404, body: graphError('Request_ResourceNotFound') }, 'removed'),
    ).toBe('already');
    expect(writeOutcome({ status: 400, body: graphError('Request_BadRequest') }, 'removed')).toBe(
      'already',
    );
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
