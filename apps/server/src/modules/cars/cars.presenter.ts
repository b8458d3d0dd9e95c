/** Turns car rows into the protocol's shapes: the members' car, one member's view, the admin's car. */
import type { AdminCar, Car, CarVideo, Telemetry } from '@telerace/protocol';
import type { ListedCar } from './car-directory.js';
import type { CarWithHolder } from './cars.repo.js';

/** What the control relay knows about connected cars (the service never touches a socket). */
export interface CarPresence {
  isOnline(carId: number): boolean;
  lastTelemetry(carId: number): (Telemetry & { at: string }) | null;
}

/** The live video's part of a car (the PIN only for those who may watch; stored, so read async). */
export interface CarVideoAccess {
  videoFor(carId: number, mayWatch: boolean): Promise<CarVideo>;
  /** The same for several cars at once (one read for the admin's list). */
  videosFor(carIds: readonly number[], mayWatch: boolean): Promise<Map<number, CarVideo>>;
}

const UNAVAILABLE: CarVideo = { available: false, pin: null };

export const NO_VIDEO: CarVideoAccess = {
  videoFor: async () => UNAVAILABLE,
  videosFor: async (carIds) => new Map(carIds.map((carId) => [carId, UNAVAILABLE])),
};

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
  async carFor(row: ListedCar, viewer: Viewer): Promise<Car> {
    const mayWatch = viewer.isAdmin || row.session?.userId === viewer.id;
    return { ...this.car(row), video: await this.video.videoFor(row.car.id, mayWatch) };
  }

  /** Cars as the admin's car tab shows them: with their PINs, codes and last telemetry. */
  async adminCars(rows: readonly CarWithHolder[]): Promise<AdminCar[]> {
    const videos = await this.video.videosFor(
      rows.map((row) => row.car.id),
      true,
    );
    return rows.map((row) => this.#adminCar(row, videos.get(row.car.id) ?? UNAVAILABLE));
  }

  /** One car as the admin's car tab shows it. */
  async adminCar(row: CarWithHolder): Promise<AdminCar> {
    return this.#adminCar(row, await this.video.videoFor(row.car.id, true));
  }

  #adminCar(row: CarWithHolder, video: CarVideo): AdminCar {
    return {
      ...this.car(row),
      video,
      control_code: row.car.controlCode,
      control_code_expires_at: row.car.controlCode
        ? (row.car.controlCodeExpiresAt?.toISOString() ?? null)
        : null,
      last_telemetry: this.presence.lastTelemetry(row.car.id),
      lap_counter_id: row.car.lapCounterId ?? null,
    };
  }
}
