/**
 * The members' open browser sockets (member-sockets.ts): one registry for the event, controller
 * and video sockets, and the one subscriber that closes them when sessions are revoked. The
 * modules that own those sockets (control, video, events) need it.
 */
import { defineModule } from '../module.js';
import { MemberSockets } from './member-sockets.js';

declare module '../module.js' {
  interface Services {
    /** Every member's open browser sockets by kind; revocations close them (member-sockets.ts). */
    memberSockets: MemberSockets;
  }
}

export const memberSocketsModule = defineModule({
  name: 'member-sockets',
  provides: ['memberSockets'],
  services: () => ({ memberSockets: new MemberSockets() }),
  on: ({ memberSockets }) => memberSockets.handlers(),
});
