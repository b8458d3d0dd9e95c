/**
 * One error shape everywhere: `{ error, errorKey? }`. `errorKey` is an i18n key the web app
 * translates; `error` is an English text for logs and clients without translations.
 */
import { z } from 'zod';

export const ErrorBody = z.object({
  error: z.string(),
  errorKey: z.string().optional(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

export const ERROR_KEYS = {
  notFound: 'errors.notFound',
  validation: 'errors.validation',
  internal: 'errors.internal',
  unauthorized: 'errors.unauthorized',
  forbidden: 'errors.forbidden',
  tooManyRequests: 'errors.tooManyRequests',
  notReady: 'errors.notReady',
  databaseUnavailable: 'errors.databaseUnavailable',
  invalidCredentials: 'errors.invalidCredentials',
  emailOrUsernameInUse: 'errors.emailOrUsernameInUse',
  usernameInvalidCharacters: 'errors.usernameInvalidCharacters',
  usernameReserved: 'errors.usernameReserved',
  passwordTooCommon: 'errors.passwordTooCommon',
  wrongCurrentPassword: 'errors.wrongCurrentPassword',
  sessionExpired: 'errors.sessionExpired',
  banned: 'errors.banned',
  botCheckFailed: 'errors.botCheckFailed',
  resetTokenInvalid: 'errors.resetTokenInvalid',
  loginCodeInvalid: 'errors.loginCodeInvalid',
  tooManyResetRequests: 'errors.tooManyResetRequests',
  tooManyLoginAttempts: 'errors.tooManyLoginAttempts',
  userNotFound: 'errors.userNotFound',
  cannotRemoveOwnAdmin: 'errors.cannotRemoveOwnAdmin',
  cannotActOnSelf: 'errors.cannotActOnSelf',
  lastSignInMethod: 'errors.lastSignInMethod',
  recentSignInRequired: 'errors.recentSignInRequired',
  carNotFound: 'errors.carNotFound',
  controlCodeRequired: 'errors.controlCodeRequired',
  invalidControlCode: 'errors.invalidControlCode',
  tooManyControlCodeAttempts: 'errors.tooManyControlCodeAttempts',
  carInUse: 'errors.carInUse',
  carOffline: 'errors.carOffline',
  notCarHolder: 'errors.notCarHolder',
  raceNotInLobby: 'errors.raceNotInLobby',
  raceNotRunning: 'errors.raceNotRunning',
  raceInProgress: 'errors.raceInProgress',
  raceBusy: 'errors.raceBusy',
  notInLobby: 'errors.notInLobby',
  raceNoParticipants: 'errors.raceNoParticipants',
  lapCounterNotConnected: 'errors.lapCounterNotConnected',
  lapCounterIdInUse: 'errors.lapCounterIdInUse',
  raceNotFound: 'errors.raceNotFound',
  raffleAlreadyOpen: 'errors.raffleAlreadyOpen',
  raffleNotOpen: 'errors.raffleNotOpen',
  raffleNotFound: 'errors.raffleNotFound',
  raffleEntryRefused: 'errors.raffleEntryRefused',
  raffleAlreadyEntered: 'errors.raffleAlreadyEntered',
  socialIdentityTaken: 'errors.socialIdentityTaken',
  socialProviderUnavailable: 'errors.socialProviderUnavailable',
  registrationIncomplete: 'errors.registrationIncomplete',
  seasonNotFound: 'errors.seasonNotFound',
  integrationNotConnected: 'errors.integrationNotConnected',
  testMessageUnsupported: 'errors.testMessageUnsupported',
  invalidWebhookSignature: 'errors.invalidWebhookSignature',
} as const;
export type ErrorKey = (typeof ERROR_KEYS)[keyof typeof ERROR_KEYS];
