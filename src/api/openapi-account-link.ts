/** The OpenAPI text of an operator's link of an account ID (after ACCOUNT_EXISTS). */

/** `POST /connectors/{name}/accounts/{accountId}/link`. */
export function linkAccountPath(name: object, error: (description: string) => object) {
  return {
    post: {
      summary:
        "After a lookup refused an account ID with ACCOUNT_EXISTS (the linked object deleted outside, another object holding the account ID): link the account ID to that object, when an operator found it is this person's. Only when the target shows it: the linked object gone (and not created by the service within the visibility window), the account ID held by targetId. Written under the account's lease; who, why and the object linked before are kept in the account's record. Nothing is written on the target and nothing is journaled",
      parameters: [
        name,
        { name: 'accountId', in: 'path', required: true, schema: { type: 'string' } },
      ],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['targetId', 'reason'],
              properties: {
                targetId: {
                  type: 'string',
                  description:
                    "The target's id of the object that holds the account ID now (as ACCOUNT_EXISTS names it)",
                },
                reason: {
                  type: 'string',
                  minLength: 1,
                  maxLength: 300,
                  description: 'Why (a ticket): kept in the record',
                },
              },
            },
          },
        },
      },
      responses: {
        200: {
          description: 'linked: whether this call linked it (false: linked to that object already)',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: {
                  connector: { type: 'string' },
                  accountId: { type: 'string' },
                  targetId: { type: 'string' },
                  linked: { type: 'boolean' },
                  note: { type: 'string' },
                },
              },
            },
          },
        },
        400: error('No targetId or reason, or one that is not text'),
        404: error('Unknown connector'),
        409: error(
          'REQUEST_CONFLICT: the target does not show what the link needs (named); ACCOUNT_BUSY: a request holds the account',
        ),
      },
    },
  };
}
