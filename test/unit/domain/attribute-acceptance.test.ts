import { describe, expect, it } from 'vitest';
import { unmappedAttributes } from '../../../src/domain/attribute-acceptance';
import { secretWordIn } from '../../../src/domain/secret-names';

describe('secretWordIn', () => {
  it.each([
    ['password', 'password'],
    ['PASSWORD', 'PASSWORD'],
    ['userPassword', 'Password'],
    ['clientSecret', 'Secret'],
    ['apiToken', 'Token'],
    ['Credentials', 'Credential'],
    ['unixPasswd', 'Passwd'],
    ['api-key', 'api-key'],
  ])('finds the secret word in %s', (name, word) => {
    expect(secretWordIn(name)).toBe(word);
  });

  it.each(['department', 'jobTitle', 'employeeNumber', 'costCenter'])(
    'finds none in %s',
    (name) => {
      expect(secretWordIn(name)).toBeUndefined();
    },
  );
});

describe('unmappedAttributes', () => {
  it('names each attribute the Mapping does not name, with the connector and what it maps', () => {
    const refused = unmappedAttributes(['jobTitle', 'department'], 'hr', [
      'jobTitle',
      'costCenter',
    ]);
    expect(refused).toEqual([
      {
        attribute: 'department',
        message: expect.stringContaining('connector "hr" does not write attribute "department"'),
      },
    ]);
    expect(refused[0]!.message).toContain('its Mapping names costCenter, jobTitle');
  });

  it('points at the mapped spelling when only the case differs', () => {
    const [refused] = unmappedAttributes(['JobTitle'], 'hr', ['jobTitle']);
    expect(refused?.message).toContain('did you mean "jobTitle"?');
  });

  it('refuses every attribute of a connector whose Mapping is empty', () => {
    const refused = unmappedAttributes(['a', 'b'], 'entra', []);
    expect(refused.map((r) => r.attribute)).toEqual(['a', 'b']);
    expect(refused[0]!.message).toContain('its Mapping names no attribute');
  });

  it('refuses nothing when every attribute is mapped', () => {
    expect(unmappedAttributes(['jobTitle'], 'hr', ['jobTitle'])).toEqual([]);
  });
});
