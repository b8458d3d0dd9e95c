/** Settings of the raffles: how long a winner has to claim their prize. */
import { PRIZE_CLAIM_DEFAULT_MINUTES } from '@telerace/protocol';
import { defineSection, setting } from '../../config/define.js';
import { integerBetween } from '../../config/schemas.js';

export const rafflesConfig = defineSection({
  prizeClaimMinutes: setting({
    env: 'PRIZE_CLAIM_MINUTES',
    schema: integerBetween(1, 1440),
    default: String(PRIZE_CLAIM_DEFAULT_MINUTES),
    doc: 'Minutes a raffle winner has to claim their prize (1–1440) by signing in with the winning account; after that the prize expires. An admin can clear every pending prize at once.',
  }),
});
