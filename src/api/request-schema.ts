import { z } from 'zod';
import { ACTION_TYPES } from '../domain/provisioning-request';

/** No control characters, and nothing that ends a quoted filter string (RFC 7644 §3.4.2.2). */
// eslint-disable-next-line no-control-regex -- control characters are what it refuses
const SAFE_TEXT = /^[^\u0000-\u001f\u007f"\\]*$/;

const safeText = (what: string, max: number) =>
  z
    .string()
    .min(1, `${what} must not be empty`)
    .max(max, `${what} must be at most ${max} characters`)
    .regex(SAFE_TEXT, `${what} must not contain quotes, backslashes or control characters`)
    .refine((value) => value.trim() === value, `${what} must not start or end with spaces`);

export const requestIdSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/,
    'must be 1-100 letters, digits, dots, dashes or underscores',
  );

const groupSelector = z.union(
  [
    safeText('group name', 256),
    z.strictObject({ id: safeText('group id', 256) }),
    z.strictObject({ name: safeText('group name', 256) }),
  ],
  { error: 'a group is a name, { "name": ... } or { "id": ... }' },
);

const simpleAction = z.strictObject({
  type: z.enum(['create', 'update', 'lock', 'unlock', 'setPassword', 'delete']),
});
const membershipAction = z.strictObject({
  type: z.enum(['grant', 'revoke', 'setMemberships']),
  groups: z.array(groupSelector).max(500, 'at most 500 groups per action'),
});

const action = z.unknown().transform((value, ctx) => {
  const type =
    typeof value === 'object' && value !== null ? (value as { type?: unknown }).type : undefined;
  const schema =
    type === 'grant' || type === 'revoke' || type === 'setMemberships'
      ? membershipAction
      : simpleAction;
  if (typeof type !== 'string' || !(ACTION_TYPES as readonly string[]).includes(type)) {
    ctx.addIssue({
      code: 'custom',
      path: ['type'],
      message: `unknown action ${JSON.stringify(type ?? null)}: use one of ${ACTION_TYPES.join(', ')}`,
    });
    return z.NEVER;
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    for (const issue of parsed.error.issues)
      ctx.addIssue({ ...issue, code: 'custom', message: issue.message });
    return z.NEVER;
  }
  return parsed.data;
});

const simpleValue = z.union([z.string().max(1024), z.number(), z.boolean()]);

export const accountSchema = z.strictObject({
  accountId: safeText('accountId', 256),
  displayName: z.string().min(1).max(256).optional(),
  givenName: z.string().min(1).max(128).optional(),
  familyName: z.string().min(1).max(128).optional(),
  email: z.email('must be an e-mail address').optional(),
  attributes: z
    .record(
      z
        .string()
        .regex(
          /^[A-Za-z][A-Za-z0-9._:-]{0,127}$/,
          'attribute names are letters, digits, dots, colons, dashes',
        ),
      simpleValue,
    )
    .optional(),
});

/**
 * `POST /api/requests` and bulk queue messages (DESIGN: Inbound API). Cross-field rules:
 * create comes first, nothing follows delete, a password is used by a create or
 * setPassword action, and setPassword needs one.
 */
export const provisioningRequestSchema = z
  .strictObject({
    requestId: requestIdSchema.optional(),
    connector: z.string().min(1, 'connector must be named').max(63),
    account: accountSchema,
    password: z.string().min(1).max(256).optional(),
    actions: z.array(action).min(1, 'at least one action').max(50, 'at most 50 actions'),
  })
  .superRefine((body, ctx) => {
    const types = body.actions.map((a) => a.type);
    const createAt = types.indexOf('create');
    if (createAt > 0 || types.lastIndexOf('create') !== createAt) {
      ctx.addIssue({
        code: 'custom',
        path: ['actions', types.lastIndexOf('create')],
        message: 'create must be the first action, and only once',
      });
    }
    const deleteAt = types.indexOf('delete');
    if (deleteAt >= 0 && deleteAt !== types.length - 1) {
      ctx.addIssue({
        code: 'custom',
        path: ['actions', deleteAt + 1],
        message: 'no action may follow delete',
      });
    }
    const usesPassword = types.includes('create') || types.includes('setPassword');
    if (types.includes('setPassword') && body.password === undefined) {
      ctx.addIssue({ code: 'custom', path: ['password'], message: 'setPassword needs a password' });
    }
    if (body.password !== undefined && !usesPassword) {
      ctx.addIssue({
        code: 'custom',
        path: ['password'],
        message: 'a password is only accepted with a create or setPassword action',
      });
    }
    body.actions.forEach((a, index) => {
      if ((a.type === 'grant' || a.type === 'revoke') && 'groups' in a && a.groups.length === 0) {
        ctx.addIssue({
          code: 'custom',
          path: ['actions', index, 'groups'],
          message: `${a.type} needs at least one group`,
        });
      }
    });
  });

export type ProvisioningRequestBody = z.output<typeof provisioningRequestSchema>;

/** Every problem of a failed parse, each with the path it is about (never the value). */
export function describeProblems(error: z.ZodError): { path: string; message: string }[] {
  return error.issues.map((issue) => ({
    path: issue.path.length === 0 ? '(body)' : issue.path.map(String).join('.'),
    message: issue.message,
  }));
}
