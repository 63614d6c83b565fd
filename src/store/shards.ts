// Counters that many requests move (redemption list totals, promotion tier summaries) are spread over
// several rows, so concurrent transactions on PostgreSQL seldom wait for the same row; readers add the
// rows up. The row a request uses comes from an id of the request (its parent redemption, its rollback),
// so every write of one request to one counter goes to the same row: two transactions never wait on each
// other's rows of one counter in opposite orders.

/** The shard (0 … shards-1) that `groupId` writes to. */
export function shardOf(groupId: string, shards: number): number {
  let hash = 0;
  for (let i = 0; i < groupId.length; i++) hash = (Math.imul(hash, 31) + groupId.charCodeAt(i)) | 0;
  return (hash >>> 0) % shards;
}
