/** The calls of the profile screen (spec §7 `/me*`), made as the signed-in user. */
import {
  type ChangePasswordRequest,
  type DeleteAccountRequest,
  MessageResponse,
  type Platform,
  type UpdateDetailsRequest,
  type UpdateProfileRequest,
  type User,
  UserMessageResponse,
  UserResponse,
} from '@telerace/protocol';
import { authFetch } from '../../lib/auth-client';

export function updateDetails(body: UpdateDetailsRequest) {
  return authFetch('/me/details', { method: 'PATCH', json: body }, UserMessageResponse);
}

export async function updateProfile(body: UpdateProfileRequest): Promise<User> {
  const { user } = await authFetch('/me', { method: 'PATCH', json: body }, UserResponse);
  return user;
}

export function changePassword(body: ChangePasswordRequest) {
  return authFetch('/me/password', { method: 'POST', json: body }, UserMessageResponse);
}

export async function disconnectPlatform(platform: Platform): Promise<User> {
  const { user } = await authFetch('/me/disconnect', { method: 'POST', json: { platform } }, UserResponse);
  return user;
}

/** Deletes the account for good; the server checks the current password (or a recent sign-in). */
export async function deleteAccount(body: DeleteAccountRequest): Promise<void> {
  await authFetch('/me', { method: 'DELETE', json: body }, MessageResponse.optional());
}
