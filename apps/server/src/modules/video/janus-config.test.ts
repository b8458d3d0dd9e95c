import { describe, expect, it } from 'vitest';
import { parseSections } from '../../config/define.js';
import {
  JanusServiceConfigError,
  janusConfigFiles,
  janusServiceConfig,
  newJanusSecrets,
} from './janus-config.js';
import { videoConfig } from './video.config.js';

const SECRETS = { adminSecret: 'ADMIN-SECRET-value_1', adminKey: 'ADMIN-KEY-value_2' };
const OPTIONS = {
  libDir: '/usr/lib/x86_64-linux-gnu/janus',
  wsPort: 8188,
  httpPort: 8088,
  adminApi: { port: 7088, secret: SECRETS.adminSecret },
  rtpPortRange: [20000, 20999] as const,
  adminKey: SECRETS.adminKey,
};
const files = janusConfigFiles({ ...OPTIONS, configsFolder: '/var/lib/telerace/janus' });
const lines = (name: string): string[] => (files[name] ?? '').split('\n').map((line) => line.trim());

describe('janusConfigFiles', () => {
  it('writes exactly the four files Janus reads', () => {
    expect(Object.keys(files).sort()).toEqual([
      'janus.jcfg',
      'janus.plugin.streaming.jcfg',
      'janus.transport.http.jcfg',
      'janus.transport.websockets.jcfg',
    ]);
  });

  it('janus.jcfg: folders, admin secret, RTP range, no mDNS, only streaming + ws + http', () => {
    const jcfg = lines('janus.jcfg');
    expect(jcfg).toEqual(
      expect.arrayContaining([
        'configs_folder = "/var/lib/telerace/janus"',
        'plugins_folder = "/usr/lib/x86_64-linux-gnu/janus/plugins"',
        'transports_folder = "/usr/lib/x86_64-linux-gnu/janus/transports"',
        'admin_secret = "ADMIN-SECRET-value_1"',
        'rtp_port_range = "20000-20999"',
        'ignore_mdns = true',
      ]),
    );
    const disabled = (section: string): string[] => {
      const match = new RegExp(`${section}: \\{\\n\\tdisable = "([^"]*)"`).exec(files['janus.jcfg'] ?? '');
      return match?.[1]?.split(',') ?? [];
    };
    expect(disabled('plugins')).toContain('libjanus_videoroom.so');
    expect(disabled('plugins')).not.toContain('libjanus_streaming.so');
    expect(disabled('plugins').every((name) => /^libjanus_\w+\.so$/.test(name))).toBe(true);
    expect(disabled('transports').sort()).toEqual([
      'libjanus_mqtt.so',
      'libjanus_nanomsg.so',
      'libjanus_pfunix.so',
      'libjanus_rabbitmq.so',
    ]);
  });

  it('janus.jcfg: the JSON logger plugin is disabled (it has no config file and logs errors)', () => {
    expect(files['janus.jcfg']).toContain('loggers: {\n\tdisable = "libjanus_jsonlog.so"\n}');
  });

  it('transports listen on 127.0.0.1 only', () => {
    expect(lines('janus.transport.websockets.jcfg')).toEqual(
      expect.arrayContaining(['ws = true', 'ws_port = 8188', 'ws_ip = "127.0.0.1"', 'wss = false']),
    );
    expect(lines('janus.transport.http.jcfg')).toEqual(
      expect.arrayContaining([
        'base_path = "/janus"',
        'http = true',
        'port = 8088',
        'ip = "127.0.0.1"',
        'admin_base_path = "/admin"',
        'admin_http = true',
        'admin_port = 7088',
        'admin_ip = "127.0.0.1"',
      ]),
    );
  });

  it('streaming plugin: admin key and RTP range', () => {
    expect(lines('janus.plugin.streaming.jcfg')).toEqual(
      expect.arrayContaining(['admin_key = "ADMIN-KEY-value_2"', 'rtp_port_range = "20000-20999"']),
    );
  });

  it('puts each secret in its own file and nowhere else', () => {
    for (const [name, text] of Object.entries(files)) {
      expect(text.includes(SECRETS.adminSecret), name).toBe(name === 'janus.jcfg');
      expect(text.includes(SECRETS.adminKey), name).toBe(name === 'janus.plugin.streaming.jcfg');
    }
  });

  it('announces no public address unless told, and JANUS_PUBLIC_IP as nat_1_1_mapping', () => {
    expect(files['janus.jcfg']).not.toMatch(/^\s*nat_1_1_mapping/m);
    const natted = janusConfigFiles({ ...OPTIONS, configsFolder: '/d', publicIp: '203.0.113.10' });
    expect(natted['janus.jcfg']).toMatch(
      /nat: \{\n(\t#.*\n)+\tnat_1_1_mapping = "203\.0\.113\.10"\n\tkeep_private_host = false\n/,
    );
  });

  it('refuses nonsense ports', () => {
    const base = { ...OPTIONS, configsFolder: '/d' };
    expect(() => janusConfigFiles({ ...base, wsPort: 0, rtpPortRange: [1, 2] })).toThrow(RangeError);
    expect(() => janusConfigFiles({ ...base, rtpPortRange: [30000, 20000] })).toThrow(RangeError);
    expect(() => janusConfigFiles({ ...base, adminApi: { port: 70000, secret: 's' } })).toThrow(RangeError);
  });
});

describe('newJanusSecrets', () => {
  it('gives fresh, distinct base64url secrets', () => {
    const a = newJanusSecrets();
    const b = newJanusSecrets();
    for (const secret of [a.adminSecret, a.adminKey]) expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a.adminSecret).not.toBe(a.adminKey);
    expect(a.adminSecret).not.toBe(b.adminSecret);
  });
});

describe('janusServiceConfig (npm run janus:config)', () => {
  const folders = { configsFolder: '/etc/telerace/janus', libDir: '/usr/lib/x86_64-linux-gnu/janus' };
  const settings = (env: Record<string, string>) =>
    parseSections([videoConfig], env) as Parameters<typeof janusServiceConfig>[0];
  const fromEnv = (env: Record<string, string>) => janusServiceConfig(settings(env), folders);

  it('listens where the servers reach Janus, with their admin key, and the RTP window', () => {
    const options = fromEnv({
      JANUS_URL: 'ws://127.0.0.1:8188',
      JANUS_ADMIN_KEY: 'the-servers-key',
      JANUS_RTP_PORTS: '30000-30499',
      JANUS_PUBLIC_IP: '203.0.113.10',
    });
    expect(options).toMatchObject({
      ...folders,
      wsPort: 8188,
      httpPort: 8088,
      httpBasePath: '/janus',
      listenIp: '127.0.0.1',
      rtpPortRange: [30000, 30499],
      publicIp: '203.0.113.10',
      adminKey: 'the-servers-key',
      // Telerace does not use the Admin API: a service of its own goes without.
      adminApi: null,
      writtenBy: 'janus:config',
    });
    const written = janusConfigFiles(options);
    expect(written['janus.jcfg']).toMatch(/^# Written by `npm run janus:config`/);
    expect(written['janus.jcfg']).not.toContain('admin_secret');
    expect(written['janus.transport.http.jcfg']).toMatch(/admin: \{\n.*\n\tadmin_http = false\n/);
    expect(written['janus.transport.http.jcfg']).toContain('ip = "127.0.0.1"');
  });

  it('takes JANUS_API_URL for REST, and 20000-20999 without JANUS_RTP_PORTS', () => {
    const options = fromEnv({
      JANUS_URL: 'ws://10.0.0.5:9188',
      JANUS_API_URL: 'http://10.0.0.5:9088/rest/',
      JANUS_ADMIN_KEY: 'k',
    });
    expect(options).toMatchObject({
      wsPort: 9188,
      httpPort: 9088,
      httpBasePath: '/rest',
      listenIp: '10.0.0.5',
      rtpPortRange: [20000, 20999],
      publicIp: null,
    });
  });

  it.each([
    [{}, /JANUS_URL is not set/],
    [{ JANUS_URL: 'ws://127.0.0.1:8188' }, /JANUS_ADMIN_KEY is not set/],
    [{ JANUS_URL: 'wss://127.0.0.1:8188', JANUS_ADMIN_KEY: 'k' }, /no TLS/],
    [{ JANUS_URL: 'ws://janus.example:8188', JANUS_ADMIN_KEY: 'k' }, /must be an IP address/],
    [
      { JANUS_URL: 'ws://10.0.0.5:8188', JANUS_API_URL: 'http://10.0.0.6:8088/janus', JANUS_ADMIN_KEY: 'k' },
      /same Janus address/,
    ],
  ])('refuses settings it cannot write a Janus for: %j', (env, message) => {
    expect(() => fromEnv(env)).toThrow(JanusServiceConfigError);
    expect(() => fromEnv(env)).toThrow(message);
  });
});
