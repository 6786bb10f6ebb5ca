/** A stored directory object: Graph property names, `id` always present. */
export type DirectoryRecord = Record<string, unknown> & { id: string };
