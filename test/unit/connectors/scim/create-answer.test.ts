import { describe, expect, it } from 'vitest';
import { createAnswerFault } from '../../../../src/connectors/scim/create-answer';

describe('createAnswerFault: can the created account be read from the answer?', () => {
  it.each([
    [{ status: 201, body: { id: 'u1', userName: 'jane' }, text: '{}' }, undefined],
    [{ status: 201, body: { userName: 'jane' }, text: '{}' }, 'answered without an id'],
    [{ status: 201, body: { id: '', userName: 'jane' }, text: '{}' }, 'answered without an id'],
    [{ status: 201, body: { id: 'u1' }, text: '{}' }, 'answered without a userName'],
    [{ status: 201, body: undefined, text: '' }, 'answered 201 without a body'],
    [{ status: 200, body: undefined, text: '<html>' }, 'answered 200 with a body that is not JSON'],
    [
      { status: 201, body: ['u1'], text: '["u1"]' },
      'answered 201 with something that is not a user',
    ],
  ])('%j -> %s', (answer, fault) => {
    expect(createAnswerFault(answer)).toBe(fault);
  });
});
