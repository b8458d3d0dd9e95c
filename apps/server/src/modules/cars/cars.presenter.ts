/** Turns car rows into the protocol's shapes: the members' car, one member's view, the admin's car. */
import type { AdminCar, Car, CarVideo, Telemetry } from '@telerace/protocol';
import type { ListedCar } from './car-directory.js';
import type { CarWithHolder } from './cars.repo.js';

/** What the control relay knows about connected cars (the service never touches a socket). */
export interface CarPresence {
  isOnline(carId: number): boolean;
  lastTelemetry(carId: number): TelemetryAt | null;
}

/** A car's telemetry and when the server received it. */
export type TelemetryAt = Telemetry & { at: string };

/**
 * Cars' last telemetry as other instances recorded it (scale-out/shared-telemetry.ts): the
 * relay here knows only the cars held here or driven from here. Absent in one process.
 */
export interface TelemetryElsewhere {
  lastOf(carIds: readonly number[]): Promise<ReadonlyMap<number, TelemetryAt>>;
}

/** The fresher of two telemetries (by `at`); either may be missing. */
export function fresher(here: TelemetryAt | null, elsewhere: TelemetryAt | undefined): TelemetryAt | null {
  if (!elsewhere) return here;
  if (!here) return elsewhere;
  return Date.parse(elsewhere.at) > Date.parse(here.at) ? elsewhere : here;
}

/** The live video's part of a car (the PIN only for those who may watch; stored, so read async). */
export interface CarVideoAccess {
  videoFor(carId: number, mayWatch: boolean): Promise<CarVideo>;
  /** The same for several cars at once (one read for the admin's list). */
  videosFor(carIds: readonly number[], mayWatch: boolean): Promise<Map<number, CarVideo>>;
}

const UNAVAILABLE: CarVideo = { available: false, pin: null };
const NOWHERE: ReadonlyMap<number, TelemetryAt> = new Map();

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
  readonly presence: CarPresence;
  readonly video: CarVideoAccess;

  constructor(deps: { presence: CarPresence; video: CarVideoAccess }) {
    this.presence = deps.presence;
    this.video = deps.video;
  }

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

  /**
   * Cars as the admin's car tab shows them: with their PINs, codes and last telemetry (the
   * fresher of the relay's here and `elsewhere`'s, other instances' record).
   */
  async adminCars(
    rows: readonly CarWithHolder[],
    elsewhere: ReadonlyMap<number, TelemetryAt> = NOWHERE,
  ): Promise<AdminCar[]> {
    const videos = await this.video.videosFor(
      rows.map((row) => row.car.id),
      true,
    );
    return rows.map((row) =>
      this.#adminCar(row, videos.get(row.car.id) ?? UNAVAILABLE, elsewhere.get(row.car.id)),
    );
  }

  /** One car as the admin's car tab shows it. */
  async adminCar(row: CarWithHolder, elsewhere?: TelemetryAt): Promise<AdminCar> {
    return this.#adminCar(row, await this.video.videoFor(row.car.id, true), elsewhere);
  }

  #adminCar(row: CarWithHolder, video: CarVideo, elsewhere: TelemetryAt | undefined): AdminCar {
    return {
      ...this.car(row),
      video,
      control_code: row.car.controlCode,
      control_code_expires_at: row.car.controlCode
        ? (row.car.controlCodeExpiresAt?.toISOString() ?? null)
        : null,
      last_telemetry: fresher(this.presence.lastTelemetry(row.car.id), elsewhere),
      lap_counter_id: row.car.lapCounterId ?? null,
    };
  }
}
