/**
 * What another process costs, read from Linux's /proc: its resident memory and the CPU time it has
 * used. Read from outside, so measuring changes nothing in the measured server.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Resident set size in KB (VmRSS), or NaN where /proc is not available. */
export function residentKb(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

const TICKS_PER_SECOND = 100;

/** User + system CPU time used so far, in ms (NaN where /proc is not available). */
export function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at state (field 3); utime and stime are 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return (ticks * 1000) / TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

/** A process under another: its id, its name (`comm`) and its command line. */
export interface Descendant {
  pid: number;
  comm: string;
  cmdline: string;
}

/** Every process below `pid` (children, their children…), read from /proc; empty where it is not available. */
export function descendants(pid: number): Descendant[] {
  const parents = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(parent, [...(parents.get(parent) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const found: Descendant[] = [];
  const queue = [...(parents.get(pid) ?? [])];
  for (let child = queue.shift(); child !== undefined; child = queue.shift()) {
    try {
      found.push({
        pid: child,
        comm: readFileSync(`/proc/${child}/comm`, 'utf8').trim(),
        cmdline: readFileSync(`/proc/${child}/cmdline`, 'utf8').split('\0').join(' ').trim(),
      });
    } catch {
      continue;
    }
    queue.push(...(parents.get(child) ?? []));
  }
  return found;
}
