/** The shared schemas the modules of the first download parse with: one chunk, fetched by schemas.ts. */
export { AccessTokenResponse, TicketsResponse, UserResponse } from '@telerace/protocol';
