/**
 * Cars as the server lists them, for the tests of the car screens: an idle online car with default
 * settings unless the test says otherwise.
 */
import type { AdminCar, Car } from '@telerace/protocol';

type CarIdentity = Pick<Car, 'id' | 'name'>;

/** A car of GET /api/cars. */
export function buildCar(fields: CarIdentity & Partial<Car>): Car {
  return {
    image_url: null,
    status: 'online',
    stream_id: 7,
    current_user_id: null,
    username: null,
    config_forward_speed: 100,
    config_backward_speed: 100,
    config_steering_trim: 0,
    session_ends_at: null,
    ...fields,
  };
}

/** A car of GET /api/admin/cars: no control code and no telemetry unless given. */
export function buildAdminCar(fields: CarIdentity & Partial<AdminCar>): AdminCar {
  return {
    ...buildCar(fields),
    control_code: null,
    control_code_expires_at: null,
    last_telemetry: null,
    lap_counter_id: null,
    ...fields,
  };
}
