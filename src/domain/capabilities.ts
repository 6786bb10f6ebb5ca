/** What a connector's target can do, so that no rule ever branches on the connector kind. */
export interface ConnectorCapabilities {
  /**
   * How long a write may take to become visible to reads (and a new object to writes):
   * re-reads and patient retries run for at most this long (spec: Membership write
   * procedure, step 5: 30 s for Graph). 0 for targets whose reads show every write at once.
   */
  visibilityWindowMs: number;
  /**
   * `all`: a membership read returns every direct group of the account, so unexpected
   * groups can be named. `named`: only the groups asked about can be read.
   */
  membershipReadScope: 'all' | 'named';
  /**
   * How many membership changes one write call can carry: 1 where each group is its own
   * PATCH (SCIM), 20 where a `$batch` envelope carries them (Graph). A write operation gets
   * at most this many, so it makes one call.
   */
  membershipWriteBatchSize: number;
  /**
   * Whether the answer to a membership write says if the change was in place already
   * (Graph: 204 applied; 400 "already exist" on add, 404 on remove). The read before the
   * writes then only plans and reports, and is left out for an account the request has just
   * created: such an account is a member of nothing, and a read could only fail to show it.
   * False where a write is acknowledged alike either way (SCIM 200/204): the read tells.
   */
  membershipWritesSayIfInPlace: boolean;
}
