/**
 * When a member's write is sent again on its own (a mutation's `retry`): only a write that is safe
 * to apply twice (it sets a value, or carries its own request id) and only when the server was not
 * reached at all (`fetch` threw). Any answer from the server, a refusal included, is shown as it is.
 */
export function retryUnreached(failureCount: number, error: unknown): boolean {
  return failureCount < 1 && error instanceof TypeError;
}
