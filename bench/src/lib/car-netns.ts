/**
 * A car on a network of its own (issue 42): a network namespace joined to this machine by a veth
 * pair, with nftables dropping packets at random each way (the kernel's own TCP then retransmits
 * as it would on venue Wi-Fi: 200 ms minimum RTO, doubling) or dropping everything for a blackout
 * (a Wi-Fi roam, a 4G handover), and (issue 43) a narrow uplink: a `tbf` qdisc on the car's end
 * of the pair, whose rate changes while traffic flows. This kernel has no netem: no delay here
 * (`redirectUdp` lets a user-space delay take the car's UDP on this machine's end). Root only;
 * only the pair's own addresses (10.242.<n>.1 here, .2 in the namespace) and a table of its own
 * in this machine's nftables; `close()` removes everything.
 */
import { type ChildProcess, execFile, execFileSync, type SpawnOptions, spawn } from 'node:child_process';
import { promisify } from 'node:util';

export interface CarNetns {
  name: string;
  /** This machine's end of the pair: where the car reaches the server. */
  hostIp: string;
  carIp: string;
  /** Each packet into and out of the namespace is dropped with this probability (0–1). */
  setLoss(loss: number): void;
  /** Every packet dropped, both ways, until `blackout(false)`. */
  blackout(on: boolean): void;
  /**
   * The car's uplink capped as `tc qdisc … tbf rate R burst B latency L` on its end of the pair
   * (null: no cap). Changed in place while traffic flows: what waits in the queue stays.
   */
  setUplinkKbps(rateKbps: number | null, shape?: UplinkShape): void;
  /** What the car sent so far and what its uplink's queue did with it (`readUplink`). */
  uplink(): Promise<UplinkCounters>;
  /**
   * UDP the car sends to this machine's end on `ports` goes to port + `offset` instead (a proxy
   * there), and its answers come back from the port the car sent to: a NAT on this machine.
   */
  redirectUdp(ports: readonly [low: number, high: number], offset: number): void;
  /** `command` run inside the namespace. */
  spawn(command: string, args: string[], options: SpawnOptions): ChildProcess;
  close(): void;
}

/** tc's `burst` (bytes) and `latency` (the queue holds rate × latency + burst bytes). */
export interface UplinkShape {
  burstBytes: number;
  latencyMs: number;
}

export const DEFAULT_UPLINK_SHAPE: UplinkShape = { burstBytes: 32 * 1024, latencyMs: 300 };

/** Counts since the namespace was made. */
export interface UplinkCounters {
  /**
   * UDP packets the car sent out of its end, before the loss and the queue, and their bytes with
   * the IP and Ethernet headers (payload + 42).
   */
  sentPackets: number;
  sentBytes: number;
  /** Of those, dropped by the loss or a blackout. */
  lostPackets: number;
  /** Dropped by the tbf queue (full, or larger than the bucket). */
  queueDropped: number;
  /** Waiting in the tbf queue now (bytes with their Ethernet header). */
  queuedBytes: number;
}

const execFileAsync = promisify(execFile);

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
  // This machine's own table, for `redirectUdp`.
  const hostTable = `telerace_car_${process.pid}`;
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
    try {
      run('nft', ['delete', 'table', 'ip', hostTable]);
    } catch {
      // Never made, or already gone.
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
    // Loss and blackouts on the car's end of the pair only, each way, at the device (netdev
    // ingress and egress: an inet output hook's drop fails the sender's send() with EPERM, which
    // no radio does); the UDP the car sends is counted before them (sent_out) and after
    // (passed_out), all before the uplink's tbf. IPv4 only: ARP keeps the pair's neighbours known.
    const hook = (chain: string, where: 'ingress' | 'egress', priority: number, rule = '') =>
      `  chain ${chain} { type filter hook ${where} device ${carSide} priority ${priority}; policy accept; ${rule} }`;
    inNs(
      'nft',
      ['-f', '-'],
      [
        'table netdev telerace {',
        hook('sent_out', 'egress', -20, 'ip protocol udp counter;'),
        hook('blackout_in', 'ingress', -10),
        hook('blackout_out', 'egress', -10),
        hook('loss_in', 'ingress', 0),
        hook('loss_out', 'egress', 0),
        hook('passed_out', 'egress', 10, 'ip protocol udp counter;'),
        '}',
        '',
      ].join('\n'),
    );
  } catch (error) {
    close();
    throw error;
  }
  const chains = (kind: 'loss' | 'blackout', rule: string | null) => {
    for (const chain of [`${kind}_in`, `${kind}_out`]) {
      inNs('nft', ['flush', 'chain', 'netdev', 'telerace', chain]);
      if (rule !== null)
        inNs('nft', [
          'add',
          'rule',
          'netdev',
          'telerace',
          chain,
          'meta',
          'protocol',
          'ip',
          ...rule.split(' '),
        ]);
    }
  };
  return {
    name,
    hostIp,
    carIp,
    setLoss: (loss) =>
      chains('loss', loss > 0 ? `numgen random mod 1000 < ${Math.round(loss * 1000)} drop` : null),
    blackout: (on) => chains('blackout', on ? 'drop' : null),
    setUplinkKbps: (rateKbps, shape = DEFAULT_UPLINK_SHAPE) => {
      if (rateKbps === null) {
        try {
          inNs('tc', ['qdisc', 'del', 'dev', carSide, 'root']);
        } catch {
          // No cap to lift.
        }
        return;
      }
      if (!(rateKbps > 0)) throw new RangeError(`rate must be > 0, got ${rateKbps}`);
      // `replace` of the same handle and kind changes the tbf in place (tbf_change): its queue and
      // counts are kept.
      inNs('tc', [
        ...['qdisc', 'replace', 'dev', carSide, 'root', 'handle', '1:', 'tbf'],
        ...['rate', `${rateKbps}kbit`, 'burst', String(shape.burstBytes), 'latency', `${shape.latencyMs}ms`],
      ]);
    },
    uplink: async () => {
      const [nft, tc] = await Promise.all(
        [
          ['nft', '-j', 'list', 'table', 'netdev', 'telerace'],
          ['tc', '-s', '-j', 'qdisc', 'show', 'dev', carSide],
        ].map(async (args) => (await execFileAsync('ip', ['netns', 'exec', name, ...args])).stdout),
      );
      return readUplink(nft ?? '', tc ?? '');
    },
    redirectUdp: ([low, high], offset) => {
      const map = Array.from({ length: high - low + 1 }, (_, i) => `${low + i} : ${low + i + offset}`);
      run(
        'nft',
        ['-f', '-'],
        `table ip ${hostTable} {
  chain prerouting {
    type nat hook prerouting priority dstnat; policy accept;
    iifname ${hostSide} ip daddr ${hostIp} udp dport ${low}-${high} redirect to udp dport map { ${map.join(', ')} }
  }
}
`,
      );
    },
    spawn: (command, args, options) => spawn('ip', ['netns', 'exec', name, command, ...args], options),
    close,
  };
}

interface NftCounter {
  rule?: { chain: string; expr: { counter?: { packets: number; bytes: number } }[] };
}

interface TcQdisc {
  kind: string;
  drops?: number;
  backlog?: number;
}

/** The namespace's counts from `nft -j list table netdev telerace` and `tc -s -j qdisc show dev <car's end>`. */
export function readUplink(nftJson: string, tcJson: string): UplinkCounters {
  const counter = (chain: string) => {
    const rules = (JSON.parse(nftJson) as { nftables: NftCounter[] }).nftables;
    for (const entry of rules) {
      if (entry.rule?.chain !== chain) continue;
      const found = entry.rule.expr.find((expr) => expr.counter)?.counter;
      if (found) return found;
    }
    throw new Error(`no counter in chain ${chain}`);
  };
  const sent = counter('sent_out');
  const passed = counter('passed_out');
  const tbf = (JSON.parse(tcJson || '[]') as TcQdisc[]).find((qdisc) => qdisc.kind === 'tbf');
  return {
    sentPackets: sent.packets,
    sentBytes: sent.bytes,
    lostPackets: sent.packets - passed.packets,
    queueDropped: tbf?.drops ?? 0,
    queuedBytes: tbf?.backlog ?? 0,
  };
}
