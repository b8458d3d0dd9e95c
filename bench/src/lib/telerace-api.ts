/** The few Telerace API calls the benches need to set the scene: an admin, members, cars. */

/** Seeded at start-up through ADMIN_EMAIL / ADMIN_PASSWORD (see `adminEnv`). */
export const BENCH_ADMIN = { email: 'bench-admin@telerace.test', password: 'bench-admin-Passw0rd!' };

/** Server settings for a bench: the seeded admin, and limits lifted because every client is 127.0.0.1. */
export const BENCH_SERVER_ENV: Record<string, string> = {
  ADMIN_EMAIL: BENCH_ADMIN.email,
  ADMIN_PASSWORD: BENCH_ADMIN.password,
  // Each bench driver may claim its own address (one trusted proxy hop) so per-IP limits see many people.
  TRUST_PROXY: '1',
  API_RATE_LIMIT_PER_MINUTE: '100000000',
  SIGNUP_RATE_LIMIT_PER_HOUR: '100000',
};

export async function api<T>(
  base: string,
  path: string,
  init: { method?: string; body?: unknown; token?: string; ip?: string } = {},
): Promise<T> {
  const res = await fetch(`${base}/api${path}`, {
    method: init.method ?? 'GET',
    headers: {
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...(init.ip ? { 'x-forwarded-for': init.ip } : {}),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${path}: HTTP ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

export async function logInAdmin(base: string): Promise<string> {
  const { accessToken } = await api<{ accessToken: string }>(base, '/login', {
    method: 'POST',
    body: { ...BENCH_ADMIN, recaptchaToken: '' },
  });
  return accessToken;
}

let members = 0;

/** Signs a new member up and logs them in; returns their access token (valid 15 min). */
export async function signUpMember(base: string, ip?: string): Promise<string> {
  members++;
  const stamp = `${members}x${Date.now() % 100000}`;
  const email = `driver${stamp}@bench.telerace.test`;
  const password = 'bench-driver-Passw0rd!';
  await api(base, '/signup', {
    method: 'POST',
    ip,
    body: { email, username: `bench${stamp}`, password, recaptchaToken: '' },
  });
  const { accessToken } = await api<{ accessToken: string }>(base, '/login', {
    method: 'POST',
    ip,
    body: { email, password, recaptchaToken: '' },
  });
  return accessToken;
}

export interface CreatedCar {
  id: number;
  /** The car's own credential, for its socket. */
  secret: string;
}

/** Creates a car through the admin API, as an operator would. */
export async function createCar(base: string, adminToken: string, name: string): Promise<CreatedCar> {
  const { car, secret } = await api<{ car: { id: number }; secret: string }>(base, '/admin/cars', {
    method: 'POST',
    token: adminToken,
    body: { name, image_url: null },
  });
  return { id: car.id, secret };
}

/** A member takes the car with a code an admin generated, as the car list's code dialog does. */
export async function takeCarWithCode(
  base: string,
  adminToken: string,
  carId: number,
  memberToken: string,
  ip?: string,
): Promise<{ controlToken: string; car: { stream_id: string | number } }> {
  const { code } = await api<{ code: string }>(base, `/admin/cars/${carId}/generate_code`, {
    method: 'POST',
    token: adminToken,
  });
  return api(base, `/cars/${carId}/connect`, { method: 'POST', ip, token: memberToken, body: { code } });
}

/** A small fleet, so that the car list has the size of a real event's. */
export async function createFleet(base: string, adminToken: string, count: number): Promise<CreatedCar[]> {
  const cars: CreatedCar[] = [];
  for (let i = 0; i < count; i++) cars.push(await createCar(base, adminToken, `Fleet ${i + 1}`));
  return cars;
}
