/**
 * The admin Integrations tab's calls (issue 14): each chat and stream integration's state, the
 * open raffle's entries per platform and the recent events; "Send test message" to a chat.
 */
import { AdminIntegrationsResponse, type IntegrationId } from '@telerace/protocol';
import { authFetch } from '../../lib/auth-client';

export const ADMIN_INTEGRATIONS_KEY = ['admin', 'integrations'] as const;

export function fetchIntegrations(): Promise<AdminIntegrationsResponse> {
  return authFetch('/admin/integrations', {}, AdminIntegrationsResponse);
}

/** Sends the server's own test text (in CHAT_LANGUAGE) to the integration's chat; 204 when sent. */
export async function sendTestMessage(id: IntegrationId): Promise<void> {
  await authFetch(`/admin/integrations/${id}/test-message`, { method: 'POST', json: {} });
}
