import { isProvisioningError } from '../../domain/errors';
import type { ScimHttp } from './scim-http';
import { scimUrl } from './scim-paths';
import type { ScimConnectorSettings } from './scim-settings';

/** What the server's ServiceProviderConfig declares (RFC 7643 §5): claims, not verdicts. */
export interface DeclaredFeatures {
  changePassword?: boolean;
  patch?: boolean;
  filter?: boolean;
  filterMaxResults?: number;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The features a ServiceProviderConfig body declares; a feature it does not declare in a
 * readable form (`{ "supported": true | false }`, also as strings) is left out.
 *
 * @example
 * declaredFeatures({ changePassword: { supported: false } }); // { changePassword: false }
 */
export function declaredFeatures(body: Record<string, unknown>): DeclaredFeatures {
  const flag = (feature: string): boolean | undefined => {
    const value = isObject(body[feature]) ? body[feature].supported : undefined;
    return value === true || value === 'true'
      ? true
      : value === false || value === 'false'
        ? false
        : undefined;
  };
  const filter = isObject(body.filter) ? body.filter : {};
  const maxResults = Number(filter.maxResults);
  const changePassword = flag('changePassword');
  const patch = flag('patch');
  const filtered = flag('filter');
  return {
    ...(changePassword === undefined ? {} : { changePassword }),
    ...(patch === undefined ? {} : { patch }),
    ...(filtered === undefined ? {} : { filter: filtered }),
    ...(Number.isFinite(maxResults) && maxResults > 0 ? { filterMaxResults: maxResults } : {}),
  };
}

/**
 * The server's declared features, read once per connector: the first call reads
 * `/ServiceProviderConfig`, later calls answer from that read. A server without one (it
 * answers 404 or 501, or a body that is not an object) declares nothing (`{}`), and stays
 * so; any other failure (unreachable, a 5xx, refused credentials, a 429) is `{}` this time
 * and read again next time: what the server declares is not known yet.
 */
export class DeclaredFeaturesReader {
  private read: Promise<DeclaredFeatures> | undefined;

  constructor(
    private readonly settings: Pick<ScimConnectorSettings, 'name' | 'baseUrl'>,
    private readonly http: ScimHttp,
  ) {}

  features(): Promise<DeclaredFeatures> {
    this.read ??= this.readOnce();
    return this.read;
  }

  private async readOnce(): Promise<DeclaredFeatures> {
    try {
      const result = await this.http.send({
        method: 'GET',
        url: scimUrl(this.settings.baseUrl, 'ServiceProviderConfig'),
        accept: [200],
        context: {
          connector: this.settings.name,
          subject: 'the ServiceProviderConfig',
          notFound: 'SCIM_REQUEST_REJECTED',
          object: 'ServiceProviderConfig',
        },
      });
      return isObject(result.body) ? declaredFeatures(result.body) : {};
    } catch (error) {
      if (!isProvisioningError(error)) throw error;
      if (error.status !== 404 && error.status !== 501) this.read = undefined;
      return {};
    }
  }
}
