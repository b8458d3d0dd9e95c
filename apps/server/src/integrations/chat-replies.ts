/**
 * What the bots answer in chat to a join command, in the configured language. Several viewers
 * with the same outcome share one message when a platform's rate limit asks for batching.
 */
import type { ChatJoinOutcome } from '@telerace/protocol';

export type ChatLanguage = 'en' | 'fr';

const REPLIES: Record<ChatLanguage, Record<ChatJoinOutcome, string>> = {
  en: {
    entered: "you're in the raffle. Good luck!",
    already_in: "you're already in this raffle.",
    no_raffle: 'no raffle is open right now.',
    refused: 'this account may not enter raffles.',
  },
  fr: {
    entered: 'tu participes au tirage. Bonne chance !',
    already_in: 'tu participes déjà à ce tirage.',
    no_raffle: "aucun tirage n'est ouvert pour le moment.",
    refused: 'ce compte ne peut pas participer aux tirages.',
  },
};

/** "@ana, @bo: you're in the raffle. Good luck!" (names as the platform mentions them). */
export function chatReply(
  language: ChatLanguage,
  outcome: ChatJoinOutcome,
  mentions: readonly string[],
): string {
  return `${mentions.join(', ')}: ${REPLIES[language][outcome]}`;
}

const TEST_MESSAGES: Record<ChatLanguage, string> = {
  en: 'Telerace test message: the bot is connected.',
  fr: 'Message de test Telerace : le bot est connecté.',
};

export function testMessage(language: ChatLanguage): string {
  return TEST_MESSAGES[language];
}
