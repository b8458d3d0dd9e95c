/**
 * GStreamer must end with the agent, however the agent ends (a crash, SIGKILL, the out-of-memory
 * killer): a camera left streaming would spend the car's data and keep the camera busy for the
 * next agent. Closing its pipes is not enough — GStreamer inherits Node's ignored SIGPIPE, and a
 * real camera's pipeline reads no stdin — so it is started through util-linux's
 * `setpriv --pdeathsig TERM`, which has the kernel send it SIGTERM when its parent dies. `setpriv`
 * replaces itself with the program, so the pid is GStreamer's.
 */
import { spawn as nodeSpawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { SpawnFn } from './sim-camera.js';

export const SETPRIV = '/usr/bin/setpriv';

let setprivFound: boolean | undefined;

/** `spawn`, with the process tied to this one's life when `setpriv` is there (it is on Debian). */
export const spawnTiedToAgent: SpawnFn = (command, args, options) => {
  setprivFound ??= existsSync(SETPRIV);
  return setprivFound
    ? nodeSpawn(SETPRIV, ['--pdeathsig', 'TERM', '--', command, ...args], options)
    : nodeSpawn(command, args, options);
};
