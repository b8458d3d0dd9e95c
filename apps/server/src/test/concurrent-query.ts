/**
 * pg's warning for a query sent to a connection still busy with another (issue 39): two queries
 * at once in one transaction, a `Promise.all` over `tx`. pg 8 queues the second with this
 * DeprecationWarning; pg 9 refuses it. The test suite fails on it: in its own process
 * (one-query-at-a-time.ts) and in the server processes it starts (test/instances.ts).
 */
export const CONCURRENT_QUERY_WARNING = 'Calling client.query() when the client is already executing a query';
