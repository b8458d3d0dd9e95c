/** Turns car rows into the protocol's shapes: the members' car, one member's view, the admin's car. */
import type { AdminCar, Car, CarVideo, Telemetry } from '@telerace/protocol';
import type { ListedCar } from './car-directory.js';
import type { CarWithHolder } from './cars.repo.js';

/** What the control relay knows about connected cars (the service never touches a socket). */
export interface CarPresence {
  isOnline(carId: number): boolean;
  lastTelemetry(carId: number): (Telemetry & { at: string }) | null;
}

/** The live video's part of a car (the PIN only for those who may watch). */
export interface CarVideoAccess {
  videoFor(carId: number, mayWatch: boolean): CarVideo;
}

export const NO_VIDEO: CarVideoAccess = { videoFor: () => ({ available: false, pin: null }) };

/** Who asks about a car: its driver and admins may watch its video. */
export interface Viewer {
  id: number;
  isAdmin: boolean;
}

export class CarPresenter {
  constructor(
    readonly presence: CarPresence,
    readonly video: CarVideoAccess,
  ) {}

  /** A car as the members' list shows it. */
  car({ car, session, username }: ListedCar): Car {
    return {
      id: car.id,
      name: car.name,
      image_url: car.imageUrl,
      status: this.presence.isOnline(car.id) ? 'online' : 'offline',
      stream_id: car.streamId,
      current_user_id: session?.userId ?? null,
      username: session ? username : null,
      config_forward_speed: car.configForwardSpeed,
      config_backward_speed: car.configBackwardSpeed,
      config_steering_trim: car.configSteeringTrim,
      session_ends_at: session?.expiresAt.toISOString() ?? null,
    };
  }

  /** One car for one member: with its video, and the PIN when they may watch it. */
  carFor(row: ListedCar, viewer: Viewer): Car {
    const mayWatch = viewer.isAdmin || row.session?.userId === viewer.id;
    return { ...this.car(row), video: this.video.videoFor(row.car.id, mayWatch) };
  }

  /** A car as the admin's car tab shows it: with its code and last telemetry. */
  adminCar(row: CarWithHolder): AdminCar {
    return {
      ...this.carFor(row, { id: 0, isAdmin: true }),
      control_code: row.car.controlCode,
      control_code_expires_at: row.car.controlCode
        ? (row.car.controlCodeExpiresAt?.toISOString() ?? null)
        : null,
      last_telemetry: this.presence.lastTelemetry(row.car.id),
      lap_counter_id: row.car.lapCounterId ?? null,
    };
  }
}
