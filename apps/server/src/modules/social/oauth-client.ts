/**
 * The OAuth 2.0 authorization-code exchange with PKCE (S256), through arctic's generic client
 * (any endpoint, so the URLs stay configurable). Twitch refuses HTTP Basic client credentials, so
 * for it the same form is posted with the secret in the body.
 */
import { CodeChallengeMethod, OAuth2Client, OAuth2Tokens, UnexpectedResponseError } from 'arctic';
import type { ProviderDescription } from './providers.js';
import type { ProviderSettings } from './social.config.js';

/** How long a provider's token endpoint may take before the sign-in fails. */
const TOKEN_REQUEST_TIMEOUT_MS = 10_000;

export interface OAuthApp {
  provider: ProviderDescription;
  settings: ProviderSettings;
  credentials: { clientId: string; clientSecret: string };
  /** PUBLIC_URL/api/auth/{platform}/callback, as registered at the provider. */
  redirectUri: string;
}

function clientOf(app: OAuthApp): OAuth2Client {
  const secret = app.provider.clientAuth === 'basic' ? app.credentials.clientSecret : null;
  return new OAuth2Client(app.credentials.clientId, secret, app.redirectUri);
}

/** Where the browser is sent to consent. */
export function authorizationUrl(app: OAuthApp, state: string, codeVerifier: string): URL {
  return clientOf(app).createAuthorizationURLWithPKCE(
    app.settings.authUrl,
    state,
    CodeChallengeMethod.S256,
    codeVerifier,
    app.provider.scopes,
  );
}

/** Trades the code (and the verifier only this server knows) for the member's access token. */
export async function exchangeCode(app: OAuthApp, code: string, codeVerifier: string): Promise<OAuth2Tokens> {
  if (app.provider.clientAuth === 'basic') {
    return clientOf(app).validateAuthorizationCode(app.settings.tokenUrl, code, codeVerifier);
  }
  const body = new URLSearchParams({
    grant_type: 'authorization_code',
    code,
    redirect_uri: app.redirectUri,
    code_verifier: codeVerifier,
    client_id: app.credentials.clientId,
    client_secret: app.credentials.clientSecret,
  });
  const response = await fetch(app.settings.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body,
    signal: AbortSignal.timeout(TOKEN_REQUEST_TIMEOUT_MS),
  });
  if (response.status !== 200) throw new UnexpectedResponseError(response.status);
  const data: unknown = await response.json();
  if (typeof data !== 'object' || data === null) throw new UnexpectedResponseError(response.status);
  return new OAuth2Tokens(data);
}

/** Whether the token grants every scope asked for (when the provider says which it granted). */
export function grantsScopes(tokens: OAuth2Tokens, scopes: readonly string[]): boolean {
  if (!tokens.hasScopes()) return true;
  const granted = new Set(tokens.scopes());
  return scopes.every((scope) => granted.has(scope));
}
