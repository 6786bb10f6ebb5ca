import { shapeDirectoryObject } from '../directory-object-shapes.js';
import type { ReadView } from '../directory-store.js';
import type { GraphCall, GraphContext } from '../graph-context.js';
import { GraphRequestError } from '../graph-error.js';
import type { GraphReply } from '../graph-error.js';
import { parseListQuery, pageOf } from '../list-query.js';
import { canReadKind } from '../permissions.js';
import { collectionReply } from './graph-replies.js';

/**
 * A page of a directoryObject collection (`members`, `memberOf`): each object carries
 * its `@odata.type`; kinds the app may not read come back as `@odata.type` and `id`
 * only (graph-behaviour.md: Reads and paging). `$filter` on these needs Graph's
 * advanced-query headers, which directory clients should not rely on, so it is refused.
 */
export function mixedCollectionReply(
  context: GraphContext,
  call: GraphCall,
  ids: readonly string[],
  view: ReadView,
): GraphReply {
  const query = parseListQuery(call.query, 999);
  if (query.filter !== undefined) {
    throw new GraphRequestError(
      400,
      'Request_UnsupportedQuery',
      'Filter on this relationship needs advanced query parameters (ConsistencyLevel: eventual and $count), which the sandbox does not serve.',
    );
  }
  const found = ids.flatMap((id) => context.store.visibleObject(id, view) ?? []);
  const page = pageOf(found, query, {
    graphEndpoint: context.graphEndpoint(),
    path: call.rawPath,
    params: call.query,
  });
  const value = page.value.map((object) =>
    shapeDirectoryObject(object.kind, object.record, query.select, {
      withType: true,
      readable:
        canReadKind(object.kind, call.roles) &&
        !(object.kind === 'group' && context.limitedGroups.has(object.record.id)),
    }),
  );
  return collectionReply(context.graphEndpoint(), 'directoryObjects', {
    value,
    nextLink: page.nextLink,
  });
}

/** 400 for an OData cast segment such as `/memberOf/microsoft.graph.group`. */
export function refuseCast(segment: string): never {
  throw new GraphRequestError(
    400,
    'Request_UnsupportedQuery',
    `The OData cast '${segment}' needs advanced query parameters; read the collection and filter on '@odata.type' instead.`,
  );
}
