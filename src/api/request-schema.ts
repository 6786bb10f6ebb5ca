import { z } from 'zod';
import { secretWordIn } from '../domain/secret-names';
import { ACTION_TYPES, type ProvisioningAction } from '../domain/provisioning-request';
import { REDACTED } from './redact-bulk-message';

/*
 * Names are the target's, not ours: a directory allows quotes, backslashes, apostrophes,
 * ampersands, any script and emoji in account IDs and group names, and the connectors
 * escape every value where it goes (RFC 7644 §3.4.2.2 in SCIM filters, doubled quotes and
 * percent-encoding in OData, percent-encoding in paths and table keys). Refused is only
 * what no target can use: control characters (they cannot be shown, typed or compared
 * reliably, and directories refuse them), unpaired surrogates (not Unicode text: JSON and
 * UTF-8 cannot carry them faithfully), blank and over-long values.
 */
// eslint-disable-next-line no-control-regex -- control characters are what it refuses
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** The problem with a text's characters, naming where it is (never repeating the value). */
function characterProblem(what: string, value: string): string | undefined {
  const control = CONTROL.exec(value);
  if (control !== null) {
    const code = control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
    return (
      `${what} must not contain control characters (U+${code} at position ${control.index + 1}): ` +
      'no directory shows or compares them reliably'
    );
  }
  const surrogate = LONE_SURROGATE.exec(value);
  if (surrogate !== null) {
    return `${what} is not valid Unicode text (an unpaired surrogate at position ${surrogate.index + 1})`;
  }
  return undefined;
}

/** Any text a target may hold, up to `max` characters: not blank, no control characters. */
export const nameText = (what: string, max: number) =>
  z
    .string()
    .min(1, `${what} must not be empty`)
    .max(max, `${what} must be at most ${max} characters`)
    .superRefine((value, ctx) => {
      if (value.length > 0 && value.trim() === '') {
        ctx.addIssue({ code: 'custom', message: `${what} must not be blank` });
      }
      const problem = characterProblem(what, value);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
    });

/*
 * An account ID is also the key the service finds the account by again; targets that trim
 * spaces (many SCIM servers) would store another ID than the one asked for.
 */
const accountIdText = nameText('accountId', 256).refine(
  (value) => value.trim() === value || value.trim() === '',
  'accountId must not start or end with spaces: a target that trims them stores another ID, ' +
    'and the account would not be found again by this one',
);

export const requestIdSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/,
    'must be 1-100 letters, digits, dots, dashes or underscores',
  );

const groupSelector = z.union(
  [
    nameText('group name', 256),
    z.strictObject({ id: nameText('group id', 256) }),
    z.strictObject({ name: nameText('group name', 256) }),
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
  accountId: accountIdText,
  displayName: nameText('displayName', 256).optional(),
  givenName: nameText('givenName', 128).optional(),
  familyName: nameText('familyName', 128).optional(),
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
    .superRefine((attributes, ctx) => {
      for (const name of Object.keys(attributes)) {
        const word = secretWordIn(name);
        if (word === undefined) continue;
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message:
            `attribute "${name}" looks like a secret ("${word}"): attributes are kept in the ` +
            "request's history, so no secret is accepted among them, whatever the connector's " +
            'Mapping says; send a password in the request\'s "password" field (it goes to the secret store)',
        });
      }
    })
    .optional(),
});

/*
 * The caller's context (who asked, why, which case) is free text for people: any character
 * but control characters, which no log, table or report shows faithfully. No secret belongs
 * here, and none is taken from here.
 */
export const requestContextSchema = {
  requestedBy: nameText('requestedBy', 256)
    .optional()
    .describe('Who asked: the person or workflow, as the caller names them'),
  reason: nameText('reason', 1024).optional().describe("Why, in the caller's words"),
  correlationId: nameText('correlationId', 256)
    .optional()
    .describe(
      "The governance workflow's own id for the case (ticket, approval); filterable in GET /journal",
    ),
};

/**
 * `POST /api/requests` and bulk queue messages (DESIGN: Inbound API). Cross-field rules:
 * create comes first, nothing follows delete, a password is used by a create or
 * setPassword action, and setPassword needs one.
 */
export const provisioningRequestSchema = z
  .strictObject({
    requestId: requestIdSchema.optional(),
    mode: z
      .enum(['run', 'preview'])
      .optional()
      .describe(
        'run (the default) provisions; preview answers with the plan and writes nothing (POST /requests only)',
      ),
    connector: z.string().min(1, 'connector must be named').max(63),
    ...requestContextSchema,
    account: accountSchema,
    password: z
      .string()
      .min(1)
      .max(256)
      // A poison record sent back as it is: its password was redacted, never a real one.
      .refine((password) => password !== REDACTED, {
        message: `password is the poison queue's redaction marker ${REDACTED}: send the request's real password`,
      })
      .optional(),
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

/** The actions of a valid request as the service runs them: every group a selector object. */
export function actionsOf(body: ProvisioningRequestBody): ProvisioningAction[] {
  return body.actions.map((action) =>
    'groups' in action
      ? {
          type: action.type,
          groups: action.groups.map((g) => (typeof g === 'string' ? { name: g } : g)),
        }
      : { type: action.type },
  );
}
