/** Settings of live video: which Janus, where cars send RTP, and the ICE servers given to browsers. */
import { z } from 'zod';
import { configError, defineSection, setting } from '../../config/define.js';
import {
  httpUrl,
  iceUrlList,
  integerBetween,
  publicAddress,
  udpPortRange,
  urlOf,
} from '../../config/schemas.js';

/** Janus's REST transport listens on 8088 at `/janus` by default, on the WebSocket's host. */
function defaultJanusApiUrl(janusUrl: string): string {
  const url = new URL(janusUrl);
  return `${url.protocol === 'wss:' ? 'https' : 'http'}://${url.hostname}:8088/janus`;
}

export const videoConfig = defineSection(
  {
    janusUrl: setting({
      env: 'JANUS_URL',
      schema: urlOf(['ws', 'wss'], 'a'),
      default: null,
      doc: 'WebSocket transport of an external Janus (`ws://` or `wss://`). Unset: when the `janus` binary is installed the server runs its own, configured under `DATA_DIR/janus/`.',
    }),
    janusAdminKey: setting({
      env: 'JANUS_ADMIN_KEY',
      schema: z.string(),
      default: null,
      doc: "Streaming plugin `admin_key` of the external Janus (needs `JANUS_URL`), used to create the cars' mountpoints.",
      secret: true,
    }),
    janusApiUrl: setting({
      env: 'JANUS_API_URL',
      schema: httpUrl(),
      default: null,
      defaultDoc: '(from JANUS_URL)',
      doc: "REST API of the external Janus (`http(s)://…/janus`), used to manage the cars' mountpoints. Default: `JANUS_URL`'s host on port 8088.",
    }),
    janusRtpHost: setting({
      env: 'JANUS_RTP_HOST',
      schema: z.string().regex(/^[A-Za-z0-9.:-]{1,255}$/, 'must be a host name or IP address'),
      default: '127.0.0.1',
      doc: "Address the cars send their camera's SRTP to (this server's video ingest, as cars reach it). Loopback: the ingest listens on loopback only; anything else: on every interface.",
    }),
    videoIngestPorts: setting({
      env: 'VIDEO_INGEST_PORTS',
      schema: udpPortRange(),
      default: null,
      doc: "UDP ports the video ingest takes for the cars' camera (one per connected car), `min-max` within 1024–65535 (e.g. `21000-21099`), to open in the firewall. Unset: any port the system gives.",
    }),
    janusRtpPorts: setting({
      env: 'JANUS_RTP_PORTS',
      schema: udpPortRange(),
      default: null,
      doc: "UDP ports Janus takes for the cars' camera RTP (one per mountpoint) and the viewers' WebRTC media, `min-max` within 1024–65535 (e.g. `20000-20999`), to open in the firewall. Unset: a random 1000-port window in 20000–59999 for the Janus the server runs; `20000-20999` in the files `npm run janus:config` writes.",
    }),
    janusPublicIp: setting({
      env: 'JANUS_PUBLIC_IP',
      schema: publicAddress(),
      default: null,
      doc: "For a Janus behind 1:1 NAT (a cloud VM whose public address is not on its interface): the public IPv4 or IPv6 address browsers reach it at, announced in place of the private one (`nat_1_1_mapping`). Used by the Janus the server runs and by `npm run janus:config`. Unset: the interfaces' own addresses.",
    }),
    janusCheckSeconds: setting({
      env: 'JANUS_CHECK_SECONDS',
      schema: integerBetween(1, 300),
      default: '10',
      doc: "How often (1–300 s) the server checks that Janus answers (`telerace_janus_up`) and still has the cars' mountpoints, and re-creates those it lost (an external Janus restarted).",
    }),
    video: setting({
      env: 'VIDEO',
      schema: z.enum(['auto', 'off'], 'must be auto or off'),
      default: 'auto',
      doc: '`auto`: live video through `JANUS_URL`, else through a Janus the server runs itself when installed (else the control page says video is unavailable). `off`: no video.',
    }),
    stunUrls: setting({
      env: 'STUN_URLS',
      schema: iceUrlList(['stun', 'stuns']),
      default: 'stun:stun.l.google.com:19302',
      // Empty means "no STUN server", not the default.
      empty: 'value',
      doc: 'Comma-separated `stun:`/`stuns:` URLs given to browsers. Empty: no STUN server.',
    }),
    turnUrls: setting({
      env: 'TURN_URLS',
      schema: iceUrlList(['turn', 'turns']),
      default: '',
      doc: 'Comma-separated `turn:`/`turns:` URLs given to browsers with credentials valid for one hour (needs `TURN_SECRET`).',
    }),
    turnSecret: setting({
      env: 'TURN_SECRET',
      schema: z.string(),
      default: null,
      doc: "coturn's `static-auth-secret` (`use-auth-secret`): the server derives short-lived TURN credentials from it. Set with `TURN_URLS`.",
      secret: true,
    }),
  },
  ({ janusApiUrl, ...values }) => {
    if (values.turnUrls.length > 0 !== (values.turnSecret !== null)) {
      throw configError('TURN_URLS and TURN_SECRET must be set together');
    }
    if (values.janusAdminKey !== null && values.janusUrl === null) {
      throw configError('JANUS_ADMIN_KEY needs JANUS_URL (the Janus the server runs has its own key)');
    }
    if (janusApiUrl !== null && values.janusUrl === null) {
      throw configError('JANUS_API_URL needs JANUS_URL');
    }
    return {
      ...values,
      janusApiUrl: values.janusUrl === null ? null : (janusApiUrl ?? defaultJanusApiUrl(values.janusUrl)),
    };
  },
);
