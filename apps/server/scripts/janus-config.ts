/**
 * `npm run janus:config -- --out <folder> [--lib-dir <janus library folder>]`: writes the
 * configuration of Janus run as its own service (deploy/systemd/janus.service reads
 * /etc/telerace/janus) from the servers' own settings, read from the environment as the server
 * reads them: Janus listens where JANUS_URL and JANUS_API_URL say, its streaming `admin_key` is
 * JANUS_ADMIN_KEY, its RTP window JANUS_RTP_PORTS, its `nat_1_1_mapping` JANUS_PUBLIC_IP. The files
 * come from janusConfigFiles(), the function the server writes its own Janus's with: one source.
 * docs/video.md "Janus as its own service". No secret is printed.
 */
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError, parseSections } from '../src/config/define.js';
import {
  JanusServiceConfigError,
  janusConfigFiles,
  janusServiceConfig,
} from '../src/modules/video/janus-config.js';
import { findJanusLibDir } from '../src/modules/video/janus-process.js';
import { videoConfig } from '../src/modules/video/video.config.js';

const USAGE = 'usage: npm run janus:config -- --out <folder> [--lib-dir <janus library folder>]';
/** Janus runs as its own user: the files are the owner's to write and its group's to read. */
const FILE_MODE = 0o640;

/** `--name value` pairs, nothing else. */
function parseOptions(args: readonly string[]): { out?: string; libDir?: string } {
  const options: { out?: string; libDir?: string } = {};
  for (let index = 0; index < args.length; index += 2) {
    const [name, value] = [args[index], args[index + 1]];
    if (value === undefined || value.startsWith('--')) throw new JanusServiceConfigError(USAGE);
    if (name === '--out') options.out = value;
    else if (name === '--lib-dir') options.libDir = value;
    else throw new JanusServiceConfigError(`unknown argument ${name}; ${USAGE}`);
  }
  return options;
}

/** Writes the files; the lines to print. */
export async function writeJanusServiceConfig(
  env: Record<string, string | undefined>,
  args: readonly string[],
): Promise<string[]> {
  const { out, libDir: givenLibDir } = parseOptions(args);
  if (out === undefined) throw new JanusServiceConfigError(USAGE);
  // npm runs scripts from the repository root: a relative folder is where the operator typed it.
  const configsFolder = isAbsolute(out) ? out : resolve(env.INIT_CWD ?? process.cwd(), out);
  const libDir = givenLibDir ?? findJanusLibDir();
  if (libDir === null)
    throw new JanusServiceConfigError(
      "Janus's library folder was not found (is janus installed? apt-get install janus); give it with --lib-dir",
    );
  const settings = parseSections([videoConfig], env) as Parameters<typeof janusServiceConfig>[0];
  const options = janusServiceConfig(settings, { configsFolder, libDir });
  await mkdir(configsFolder, { recursive: true, mode: 0o750 });
  const files = janusConfigFiles(options);
  for (const [name, content] of Object.entries(files)) {
    const file = join(configsFolder, name);
    await writeFile(file, content, { mode: FILE_MODE });
    // An existing file keeps its mode through writeFile.
    await chmod(file, FILE_MODE);
  }
  const [low, high] = options.rtpPortRange;
  return [
    `Wrote ${Object.keys(files).join(', ')} to ${configsFolder} (mode 0640).`,
    `Janus will listen on ws://${options.listenIp}:${options.wsPort} (JANUS_URL) and http://${options.listenIp}:${options.httpPort}${options.httpBasePath} (JANUS_API_URL), and take UDP ${low}-${high} for RTP and WebRTC: open that range in the firewall.`,
    options.publicIp === null
      ? 'No JANUS_PUBLIC_IP: Janus announces its interfaces’ addresses (set it on a cloud machine behind 1:1 NAT).'
      : `Janus announces ${options.publicIp} in place of its private address (nat_1_1_mapping).`,
    `Next: chgrp janus ${configsFolder} ${configsFolder}/*.jcfg && systemctl restart janus, then restart the servers (docs/video.md "Janus as its own service").`,
  ];
}

export async function main(
  env: Record<string, string | undefined> = process.env,
  args: readonly string[] = process.argv.slice(2),
  print: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
  printError: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<number> {
  try {
    for (const line of await writeJanusServiceConfig(env, args)) print(line);
    return 0;
  } catch (error) {
    const known = error instanceof JanusServiceConfigError || error instanceof ConfigError;
    printError(`janus:config failed: ${known ? error.message : String((error as Error).message ?? error)}`);
    return 1;
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main();
}
