/** The admin acting in a request, as the audit log records them. */
import type { FastifyRequest } from 'fastify';

export const actorOf = (request: FastifyRequest): { id: number; username: string } => ({
  id: request.currentUser.id,
  username: request.currentUser.username,
});
