/**
 * Live video: Janus (found or started), the cars' mountpoints, the /janus signalling proxy and
 * the ICE servers route. Janus starts as soon as Fastify is ready, without waiting for the
 * migrations: the site serves meanwhile, and cars that connect get their target once it answers.
 */
import { SOCKET_CLOSE_CODES } from '@telerace/protocol';
import { defineModule } from '../../module.js';
import { janusProxySocket } from './janus-proxy.js';
import { videoRoutes } from './video.routes.js';
import { VideoService } from './video.service.js';
import { DatabaseVideoPins } from './video-pins.repo.js';

/** What a demotion closes: the video sockets alone. */
const VIDEO_ONLY = new Set(['video'] as const);

declare module '../../module.js' {
  interface Services {
    /** Live video: Janus and the cars' mountpoints. */
    video: VideoService;
    /** Resolves once the video service found (or started) its Janus, or gave up. */
    videoStarted(): Promise<void>;
  }
}

export const videoModule = defineModule({
  name: 'video',
  needs: ['carRelay', 'memberSockets'],
  // The cars service reads the video's state: the video reads the cars' rows only later.
  uses: ['cars'],
  provides: ['video', 'videoStarted'],
  services: ({ app, config, db, bus, log, services, clock }) => {
    const video = new VideoService({
      config,
      log,
      cars: services.carRelay,
      streamIdOf: (carId) => services.cars.streamIdOf(carId),
      formerStreamIdOf: (carId) => services.cars.formerStreamIdOf(carId),
      isDriven: (carId) => services.cars.isDriven(carId),
      pins: new DatabaseVideoPins({ db }),
      bus,
      clock,
    });
    return {
      video,
      videoStarted: async () => {
        await app.ready();
        await video.started();
      },
    };
  },
  routes: (_services, { config }) => [{ plugin: videoRoutes(config) }],
  sockets: ({ video, memberSockets }, { log }) => [
    janusProxySocket({ video, sockets: memberSockets.kind('video'), log }),
  ],
  on: ({ video, memberSockets, carRelay }) => ({
    // Only a car whose socket this instance holds gets this instance's mountpoint (scale-out).
    'car.online': ({ carId }) => (carRelay.holds(carId) ? video.carOnline(carId) : undefined),
    'car.offline': ({ carId }) => video.carOffline(carId),
    'car.deleted': ({ carId }) => video.carDeleted(carId),
    'car.secret-rotated': ({ carId }) => video.carSecretRotated(carId),
    'car.session-started': ({ carId }) => video.sessionStarted(carId),
    'car.session-ended': ({ carId }) => video.sessionEnded(carId),
    'car.video-pin-changed': ({ carId }) => video.pinChanged(carId),
    // Revoked sessions take their players with them: the member-sockets registry closes them.
    // Admins are shown every PIN: a demoted admin's players go (they were admitted to watch with
    // PINs shown to admins), and every PIN changes (below).
    'user.role-changed': ({ userId, isAdmin }) => {
      if (!isAdmin)
        memberSockets.revokeMember(
          userId,
          { code: SOCKET_CLOSE_CODES.roleChanged, reason: 'role_changed' },
          VIDEO_ONLY,
        );
    },
  }),
  // The stored PINs change once, where the fact was published; `car.video-pin-changed` follows.
  onOrigin: ({ video }) => ({
    'car.session-ended': ({ carId, sessionId }) => video.replacePinAfterSession(carId, sessionId),
    'user.role-changed': ({ isAdmin }) => (isAdmin ? undefined : video.replaceAllPins()),
    'car.deleted': ({ carId }) => video.removeDeletedCar(carId),
  }),
  // Not awaited: the site serves while Janus starts.
  ready: ({ video }) => void video.start(),
  stop: ({ video }) => video.stop(),
});
