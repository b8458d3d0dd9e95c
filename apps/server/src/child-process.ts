/**
 * Child processes that end with the server, however the server ends. A SIGKILLed server (or one the
 * out-of-memory killer took) would otherwise leave its Janus and its simulated cars running beside
 * the next server's. util-linux's `setpriv --pdeathsig TERM` has the kernel send the child SIGTERM
 * when the server dies, then becomes the program (same pid). Without `setpriv` (not Debian), the
 * program is spawned as is.
 */
import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

const SETPRIV = '/usr/bin/setpriv';

export function spawnTiedToServer(command: string, args: string[], options: SpawnOptions): ChildProcess {
  return existsSync(SETPRIV)
    ? spawn(SETPRIV, ['--pdeathsig', 'TERM', '--', command, ...args], options)
    : spawn(command, args, options);
}
