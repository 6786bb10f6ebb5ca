import { ProvisioningError } from '../../domain/errors';

export interface ListPage {
  resources: Record<string, unknown>[];
  totalResults?: number;
  itemsPerPage?: number;
  startIndex?: number;
}

/**
 * Reads a ListResponse leniently (RFC 7644 §3.4.2, scim-interop.md): numbers may come as
 * strings or be missing, `Resources` may be missing when nothing matched, and its name
 * may be cased differently.
 */
export function interpretListResponse(body: unknown, describe: string): ListPage {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ProvisioningError(
      'TARGET_RESPONSE_INVALID',
      `${describe} answered without a SCIM ListResponse`,
    );
  }
  const fields = new Map<string, unknown>(
    Object.entries(body as Record<string, unknown>).map(([key, value]) => [
      key.toLowerCase(),
      value,
    ]),
  );
  const resources = fields.get('resources') ?? [];
  if (!Array.isArray(resources)) {
    throw new ProvisioningError(
      'TARGET_RESPONSE_INVALID',
      `${describe} answered with "Resources" that is not a list`,
    );
  }
  return {
    resources: resources.filter(
      (item): item is Record<string, unknown> => typeof item === 'object' && item !== null,
    ),
    ...optionalNumber('totalResults', fields.get('totalresults')),
    ...optionalNumber('itemsPerPage', fields.get('itemsperpage')),
    ...optionalNumber('startIndex', fields.get('startindex')),
  };
}

function optionalNumber(name: string, value: unknown): Record<string, number> {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) ? { [name]: number } : {};
}
