/**
 * The agent's command line: `--server URL --car ID --drive sim|pca9685|pigpio [--camera KIND]
 * [--config file.json]`, or the same after `doctor` to check the car before an event.
 */
import { parseArgs } from 'node:util';
import { type AgentSettings, resolveSettings, SettingsError } from './settings.js';

export const AGENT_VERSION = '0.1.0';

export const USAGE = `telerace car agent ${AGENT_VERSION}

usage: telerace-car --server URL --car ID [--drive sim|pca9685|pigpio] [--camera KIND] [--config FILE]
       telerace-car doctor [--quick] OPTIONS
       (in a checkout of the repository: npm run car -- OPTIONS)

  doctor           check this car before an event, with the service's own options (stop the
                   service first): server, car socket and secret, clock, drive channel, drive
                   board, camera, encoder, uplink loss and round trip; one line per check,
                   exit code 0 only when all pass (docs/car.md "Before an event")
  --quick          (doctor) measure the uplink for 3 s instead of 10

  --server URL     the Telerace server, http(s):// or ws(s):// (the agent dials /rcsocket)
  --car ID         this car's id (admin page)
  --secret S       the car secret; prefer the CAR_SECRET environment variable (not visible in ps)
  --drive KIND     sim (default), pca9685 (PWM board over I2C) or pigpio (GPIO pins)
  --camera KIND    sim (default with --drive sim), libcamera (default otherwise), v4l2, test
                   or none (no video); or the CAMERA environment variable
  --assist on|off  the simulated car's steering assist (steers toward the track's centre line,
                   your steering adds on top); on by default
  --drive-channel on|off
                   drives also by a WebRTC DataChannel (UDP, dialled out from the car) beside
                   the socket, for lossy Wi-Fi and 4G; on by default (driveChannel in --config)
  --config FILE    JSON file with any of the above and pca9685, pigpio, slew, trimMax, commands,
                   video
  --version        print the version
  --help           print this help

environment: CAR_SECRET (the car secret), CAMERA (as --camera), CAMERA_FRAMERATE (the camera's
frames per second, 1–60, over the file's video.framerate), CAMERA_SIZE (the picture's WIDTHxHEIGHT,
over the file's video.width and video.height), VIDEO_REPAIR (auto, fec or off: loss repair on the
video uplink, over the file's video.repair)

exit codes: 0 stopped or shutdown (doctor: every check passed), 1 a check failed (doctor) or the
drive cannot open, 2 bad arguments, 75 restart requested (sim reboot)`;

export type CliResult =
  | { kind: 'run'; settings: AgentSettings }
  | { kind: 'doctor'; settings: AgentSettings; quick: boolean }
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'error'; message: string };

export function parseCli(
  args: string[],
  env: Record<string, string | undefined>,
  readFile: (path: string) => string,
): CliResult {
  const doctor = args[0] === 'doctor';
  try {
    const { values } = parseArgs({
      args: doctor ? args.slice(1) : args,
      options: {
        server: { type: 'string' },
        car: { type: 'string' },
        secret: { type: 'string' },
        drive: { type: 'string' },
        camera: { type: 'string' },
        config: { type: 'string' },
        assist: { type: 'string' },
        'drive-channel': { type: 'string' },
        version: { type: 'boolean' },
        help: { type: 'boolean' },
        ...(doctor ? { quick: { type: 'boolean' as const } } : {}),
      },
      strict: true,
      allowPositionals: false,
    });
    if (values.help) return { kind: 'help' };
    if (values.version) return { kind: 'version' };
    let file: unknown;
    if (values.config !== undefined) {
      let text: string;
      try {
        text = readFile(values.config);
      } catch (error) {
        return {
          kind: 'error',
          message: `cannot read --config ${values.config}: ${(error as Error).message}`,
        };
      }
      try {
        file = JSON.parse(text);
      } catch {
        return { kind: 'error', message: `--config ${values.config} is not valid JSON` };
      }
    }
    const settings = resolveSettings({
      server: values.server,
      car: values.car,
      secret: values.secret ?? (env.CAR_SECRET || undefined),
      drive: values.drive,
      camera: values.camera ?? (env.CAMERA || undefined),
      assist: values.assist,
      driveChannel: values['drive-channel'],
      framerate: env.CAMERA_FRAMERATE || undefined,
      size: env.CAMERA_SIZE || undefined,
      repair: env.VIDEO_REPAIR || undefined,
      file,
    });
    return doctor ? { kind: 'doctor', settings, quick: values.quick === true } : { kind: 'run', settings };
  } catch (error) {
    if (error instanceof SettingsError) return { kind: 'error', message: error.message };
    // parseArgs' own errors (unknown option, missing value) are one readable line already.
    if (error instanceof TypeError) return { kind: 'error', message: error.message };
    throw error;
  }
}
