/**
 * The car agent as a process of its own, run from its sources as `npm run dev` runs it (tsx,
 * `source` condition): the command line shared by the agent's tests and the measuring scripts.
 */
import { fileURLToPath } from 'node:url';

/** The car package's folder, the agent's working directory (its `src/main.ts` is relative to it). */
export const CAR_DIR = fileURLToPath(new URL('..', import.meta.url));

/**
 * Node's arguments for an agent connecting to `server` as `car`.
 * @param {{ server: string, car: string, drive: string, camera: string, config?: string }} options
 * @returns {string[]}
 */
export function agentArgs({ server, car, drive, camera, config }) {
  return [
    '--conditions=source',
    '--import',
    'tsx',
    'src/main.ts',
    '--server',
    server,
    '--car',
    car,
    '--drive',
    drive,
    '--camera',
    camera,
    ...(config === undefined ? [] : ['--config', config]),
  ];
}
