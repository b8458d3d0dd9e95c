/**
 * The bot check on sign-up and login. Google reCAPTCHA (server-side `siteverify`) when
 * RECAPTCHA_SECRET is set; otherwise disabled: every token passes, and start-up says so once.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';

export interface BotVerifier {
  readonly enabled: boolean;
  /** True when the token proves a human; never throws (a failure to ask counts as "no"). */
  verify(token: string, ip: string): Promise<boolean>;
}

const VERIFY_TIMEOUT_MS = 5_000;

export const disabledBotVerifier: BotVerifier = {
  enabled: false,
  verify: async () => true,
};

export function recaptchaVerifier(secret: string, verifyUrl: string, log: FastifyBaseLogger): BotVerifier {
  return {
    enabled: true,
    async verify(token, ip) {
      if (!token) return false;
      try {
        const response = await fetch(verifyUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ secret, response: token, remoteip: ip }),
          signal: AbortSignal.timeout(VERIFY_TIMEOUT_MS),
        });
        if (!response.ok) {
          log.warn({ status: response.status }, 'bot check: siteverify answered an error status');
          return false;
        }
        const body = (await response.json()) as { success?: unknown; 'error-codes'?: unknown };
        if (body.success === true) return true;
        log.info({ errorCodes: body['error-codes'] }, 'bot check failed');
        return false;
      } catch (error) {
        log.warn({ err: error }, 'bot check: siteverify could not be reached');
        return false;
      }
    },
  };
}

/** The verifier the configuration asks for; logs once when the check is disabled. */
export function botVerifierFor(config: Config, log: FastifyBaseLogger): BotVerifier {
  if (config.recaptchaSecret === null) {
    log.warn('bot check disabled: RECAPTCHA_SECRET is not set');
    return disabledBotVerifier;
  }
  return recaptchaVerifier(config.recaptchaSecret, config.recaptchaVerifyUrl, log);
}
