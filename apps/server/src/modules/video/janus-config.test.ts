import { describe, expect, it } from 'vitest';
import { janusConfigFiles, newJanusSecrets } from './janus-config.js';

const SECRETS = { adminSecret: 'ADMIN-SECRET-value_1', adminKey: 'ADMIN-KEY-value_2' };
const files = janusConfigFiles({
  dataDir: '/var/lib/telerace',
  libDir: '/usr/lib/x86_64-linux-gnu/janus',
  wsPort: 8188,
  httpPort: 8088,
  adminPort: 7088,
  rtpPortRange: [20000, 20999],
  ...SECRETS,
});
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

  it('refuses nonsense ports', () => {
    const base = { dataDir: '/d', libDir: '/l', wsPort: 1, httpPort: 2, adminPort: 3, ...SECRETS };
    expect(() => janusConfigFiles({ ...base, wsPort: 0, rtpPortRange: [1, 2] })).toThrow(RangeError);
    expect(() => janusConfigFiles({ ...base, rtpPortRange: [30000, 20000] })).toThrow(RangeError);
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
