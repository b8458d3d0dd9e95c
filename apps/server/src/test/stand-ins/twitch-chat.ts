/**
 * Test support: a stand-in for Twitch chat — IRC over WebSocket on 127.0.0.1, speaking what a
 * bot (tmi.js) needs: CAP REQ → CAP ACK, PASS/NICK → the 001…376 welcome and GLOBALUSERSTATE,
 * JOIN → the JOIN echo, NAMES, USERSTATE and ROOMSTATE, PING → PONG, and viewers' PRIVMSG lines
 * with IRCv3 tags (user-id, display-name, …). It records what the bot writes in the channel, with
 * the time, so tests check the answers and the rate the bot keeps.
 *
 * Runnable on its own for manual and end-to-end runs:
 *   node --import tsx apps/server/src/test/stand-ins/twitch-chat.ts --port 6667
 * prints its URL (TWITCH_IRC_URL), then reads "<login> <text>" lines on stdin as viewers' chat and
 * prints what the bot says.
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { type WebSocket, WebSocketServer } from 'ws';

/** A chatter: a login, with the id and display name Twitch would tag their lines with. */
export interface TwitchChatter {
  login: string;
  /** Default: a stable number per login. */
  id?: string;
  /** Default: the login. */
  displayName?: string;
}

/** A line the bot wrote in a channel. */
export interface BotMessage {
  channel: string;
  text: string;
  /** Date.now() when the stand-in received it. */
  at: number;
}

export interface TwitchChatStandInOptions {
  port?: number;
  /** The `oauth:…` token the bot must present; default: any. */
  token?: string;
}

interface Session {
  socket: WebSocket;
  nick: string | null;
  password: string | null;
  welcomed: boolean;
  channels: Set<string>;
}

export interface TwitchChatStandIn {
  /** TWITCH_IRC_URL for the bot: ws://127.0.0.1:<port> */
  url: string;
  port: number;
  /** A viewer's chat line in `channel` (default: the only channel the bot joined). */
  say(chatter: TwitchChatter | string, text: string, channel?: string): void;
  /** What the bot wrote so far, oldest first. */
  botMessages(): BotMessage[];
  /** Sessions that joined a channel, now. */
  joinedSessions(): number;
  /** Connections accepted since the start (a reconnection adds one). */
  connectionCount(): number;
  /** Drops every connection at once, as a Twitch edge restart would. */
  dropConnections(): void;
  /** Asks every connection to reconnect (Twitch's RECONNECT before a server's maintenance). */
  requestReconnect(): void;
  close(): Promise<void>;
}

/** IRCv3 tag values escape `;`, spaces, backslashes and line ends. */
function escapeTag(value: string): string {
  return value.replace(/[\\; \r\n]/g, (char) =>
    char === '\\' ? '\\\\' : char === ';' ? '\\:' : char === ' ' ? '\\s' : char === '\r' ? '\\r' : '\\n',
  );
}

function tagsOf(tags: Record<string, string>): string {
  return `@${Object.entries(tags)
    .map(([key, value]) => `${key}=${escapeTag(value)}`)
    .join(';')}`;
}

const channelName = (channel: string) => `#${channel.replace(/^#/, '').toLowerCase()}`;

export async function startTwitchChatStandIn(
  options: TwitchChatStandInOptions = {},
): Promise<TwitchChatStandIn> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: options.port ?? 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const port = (server.address() as AddressInfo).port;
  const sessions = new Set<Session>();
  const messages: BotMessage[] = [];
  const ids = new Map<string, string>();
  let connections = 0;

  const send = (session: Session, ...lines: string[]) => {
    if (session.socket.readyState === session.socket.OPEN) session.socket.send(`${lines.join('\r\n')}\r\n`);
  };

  const welcome = (session: Session, nick: string) => {
    if (options.token !== undefined && session.password !== options.token) {
      send(session, ':tmi.twitch.tv NOTICE * :Login authentication failed');
      session.socket.close();
      return;
    }
    session.nick = nick;
    session.welcomed = true;
    send(
      session,
      `:tmi.twitch.tv 001 ${nick} :Welcome, GLHF!`,
      `:tmi.twitch.tv 002 ${nick} :Your host is tmi.twitch.tv`,
      `:tmi.twitch.tv 003 ${nick} :This server is rather new`,
      `:tmi.twitch.tv 004 ${nick} :-`,
      `:tmi.twitch.tv 375 ${nick} :-`,
      `:tmi.twitch.tv 372 ${nick} :You are in a maze of twisty passages, all alike.`,
      `:tmi.twitch.tv 376 ${nick} :>`,
      `${tagsOf({ 'badge-info': '', badges: '', color: '', 'display-name': nick, 'emote-sets': '0', 'user-id': '1', 'user-type': '' })} :tmi.twitch.tv GLOBALUSERSTATE`,
    );
  };

  const join = (session: Session, channel: string) => {
    const nick = session.nick as string;
    session.channels.add(channel);
    send(
      session,
      `:${nick}!${nick}@${nick}.tmi.twitch.tv JOIN ${channel}`,
      `:${nick}.tmi.twitch.tv 353 ${nick} = ${channel} :${nick}`,
      `:${nick}.tmi.twitch.tv 366 ${nick} ${channel} :End of /NAMES list`,
      `${tagsOf({ 'badge-info': '', badges: '', color: '', 'display-name': nick, 'emote-sets': '0', mod: '0', subscriber: '0', 'user-type': '' })} :tmi.twitch.tv USERSTATE ${channel}`,
      `${tagsOf({ 'emote-only': '0', 'followers-only': '-1', r9k: '0', 'room-id': '12345', slow: '0', 'subs-only': '0' })} :tmi.twitch.tv ROOMSTATE ${channel}`,
    );
  };

  const handle = (session: Session, line: string) => {
    const space = line.indexOf(' ');
    const command = (space === -1 ? line : line.slice(0, space)).toUpperCase();
    const rest = space === -1 ? '' : line.slice(space + 1);
    switch (command) {
      case 'CAP': {
        const caps = rest.replace(/^REQ\s+:?/i, '');
        send(session, `:tmi.twitch.tv CAP * ACK :${caps}`);
        break;
      }
      case 'PASS':
        session.password = rest.trim();
        break;
      case 'NICK':
        welcome(session, rest.trim().toLowerCase());
        break;
      case 'JOIN':
        if (!session.welcomed) break;
        for (const channel of rest.trim().split(',')) join(session, channelName(channel));
        break;
      case 'PART':
        session.channels.delete(channelName(rest.trim()));
        break;
      case 'PING':
        send(session, `PONG :${rest.replace(/^:/, '') || 'tmi.twitch.tv'}`);
        break;
      case 'PRIVMSG': {
        if (!session.welcomed) break;
        const match = /^(#\S+) :(.*)$/.exec(rest);
        if (!match) break;
        messages.push({ channel: match[1] as string, text: match[2] as string, at: Date.now() });
        break;
      }
      default:
        break;
    }
  };

  server.on('connection', (socket) => {
    connections += 1;
    const session: Session = { socket, nick: null, password: null, welcomed: false, channels: new Set() };
    sessions.add(session);
    socket.on('message', (data) => {
      for (const line of data.toString('utf8').split(/\r?\n/)) if (line.trim() !== '') handle(session, line);
    });
    socket.on('close', () => sessions.delete(session));
    socket.on('error', () => sessions.delete(session));
  });

  const idOf = (login: string) => {
    let id = ids.get(login);
    if (id === undefined) {
      id = String(100_000 + ids.size);
      ids.set(login, id);
    }
    return id;
  };

  return {
    url: `ws://127.0.0.1:${port}`,
    port,
    say(chatter, text, channel) {
      const who = typeof chatter === 'string' ? { login: chatter } : chatter;
      const login = who.login.toLowerCase();
      for (const session of sessions) {
        const target = channel === undefined ? [...session.channels][0] : channelName(channel);
        if (target === undefined || !session.channels.has(target)) continue;
        const tags = tagsOf({
          'badge-info': '',
          badges: '',
          color: '',
          'display-name': who.displayName ?? login,
          emotes: '',
          'first-msg': '0',
          flags: '',
          id: randomUUID(),
          mod: '0',
          'returning-chatter': '0',
          'room-id': '12345',
          subscriber: '0',
          'tmi-sent-ts': String(Date.now()),
          turbo: '0',
          'user-id': who.id ?? idOf(login),
          'user-type': '',
        });
        send(session, `${tags} :${login}!${login}@${login}.tmi.twitch.tv PRIVMSG ${target} :${text}`);
      }
    },
    botMessages: () => [...messages],
    joinedSessions: () => [...sessions].filter((session) => session.channels.size > 0).length,
    connectionCount: () => connections,
    dropConnections() {
      for (const session of sessions) session.socket.terminate();
      sessions.clear();
    },
    requestReconnect() {
      for (const session of sessions) send(session, ':tmi.twitch.tv RECONNECT');
    },
    async close() {
      for (const session of sessions) session.socket.terminate();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// As a process: `--port N`, viewers' lines from stdin, the bot's lines on stdout.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const portArg = process.argv.indexOf('--port');
  const standIn = await startTwitchChatStandIn({
    port: portArg === -1 ? 0 : Number(process.argv[portArg + 1]),
  });
  process.stdout.write(`${standIn.url}\n`);
  let printed = 0;
  setInterval(() => {
    const messages = standIn.botMessages();
    for (const message of messages.slice(printed))
      process.stdout.write(`bot ${message.channel}: ${message.text}\n`);
    printed = messages.length;
  }, 200);
  createInterface({ input: process.stdin }).on('line', (line) => {
    const [login, ...words] = line.trim().split(/\s+/);
    if (login) standIn.say(login, words.join(' '));
  });
}
