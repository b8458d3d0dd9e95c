/**
 * A car on a network of its own (issue 42): a network namespace joined to this machine by a veth
 * pair, with nftables dropping packets at random each way (the kernel's own TCP then retransmits
 * as it would on venue Wi-Fi: 200 ms minimum RTO, doubling) or dropping everything for a blackout
 * (a Wi-Fi roam, a 4G handover). This kernel has no netem: no delay here. Root only; only the
 * pair's own addresses (10.242.<n>.1 here, .2 in the namespace); `close()` removes everything.
 */
import { type ChildProcess, execFileSync, type SpawnOptions, spawn } from 'node:child_process';

export interface CarNetns {
  name: string;
  /** This machine's end of the pair: where the car reaches the server. */
  hostIp: string;
  carIp: string;
  /** Each packet into and out of the namespace is dropped with this probability (0–1). */
  setLoss(loss: number): void;
  /** Every packet dropped, both ways, until `blackout(false)`. */
  blackout(on: boolean): void;
  /** `command` run inside the namespace. */
  spawn(command: string, args: string[], options: SpawnOptions): ChildProcess;
  close(): void;
}

const run = (command: string, args: string[], input?: string) =>
  execFileSync(command, args, { stdio: ['pipe', 'ignore', 'pipe'], ...(input ? { input } : {}) });

/** Why this machine cannot make one (not root, no `ip` or `nft`), or null. */
export function netnsUnavailable(): string | null {
  if (process.getuid?.() !== 0) return 'needs root (network namespaces)';
  for (const tool of ['ip', 'nft']) {
    try {
      execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    } catch {
      return `needs \`${tool}\`: apt-get install -y ${tool === 'ip' ? 'iproute2' : 'nftables'}`;
    }
  }
  return null;
}

export function createCarNetns(): CarNetns {
  const index = 1 + (process.pid % 250);
  const name = `telerace-car-${process.pid}`;
  const hostSide = `trc${process.pid % 100_000}h`;
  const carSide = `trc${process.pid % 100_000}c`;
  const hostIp = `10.242.${index}.1`;
  const carIp = `10.242.${index}.2`;
  const inNs = (command: string, args: string[], input?: string) =>
    run('ip', ['netns', 'exec', name, command, ...args], input);
  const close = () => {
    for (const args of [
      ['link', 'del', hostSide],
      ['netns', 'del', name],
    ]) {
      try {
        run('ip', args);
      } catch {
        // Already gone.
      }
    }
  };
  close();
  try {
    run('ip', ['netns', 'add', name]);
    run('ip', ['link', 'add', hostSide, 'type', 'veth', 'peer', 'name', carSide]);
    run('ip', ['link', 'set', carSide, 'netns', name]);
    run('ip', ['addr', 'add', `${hostIp}/24`, 'dev', hostSide]);
    run('ip', ['link', 'set', hostSide, 'up']);
    inNs('ip', ['addr', 'add', `${carIp}/24`, 'dev', carSide]);
    inNs('ip', ['link', 'set', carSide, 'up']);
    inNs('ip', ['link', 'set', 'lo', 'up']);
    // Loss and blackouts on the car's side of the pair only, each way.
    inNs(
      'nft',
      ['-f', '-'],
      `table inet telerace {
  chain blackout_in { type filter hook input priority -10; policy accept; }
  chain blackout_out { type filter hook output priority -10; policy accept; }
  chain loss_in { type filter hook input priority 0; policy accept; }
  chain loss_out { type filter hook output priority 0; policy accept; }
}
`,
    );
  } catch (error) {
    close();
    throw error;
  }
  const chains = (kind: 'loss' | 'blackout', rule: string | null) => {
    for (const [chain, side] of [
      [`${kind}_in`, 'iifname'],
      [`${kind}_out`, 'oifname'],
    ] as const) {
      inNs('nft', ['flush', 'chain', 'inet', 'telerace', chain]);
      if (rule !== null)
        inNs('nft', ['add', 'rule', 'inet', 'telerace', chain, side, carSide, ...rule.split(' ')]);
    }
  };
  return {
    name,
    hostIp,
    carIp,
    setLoss: (loss) =>
      chains('loss', loss > 0 ? `numgen random mod 1000 < ${Math.round(loss * 1000)} drop` : null),
    blackout: (on) => chains('blackout', on ? 'drop' : null),
    spawn: (command, args, options) => spawn('ip', ['netns', 'exec', name, command, ...args], options),
    close,
  };
}
