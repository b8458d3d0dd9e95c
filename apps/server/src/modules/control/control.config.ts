/**
 * Settings of the drive channel (issue 27; docs/driving.md "Deploying the drive channel"): whether
 * the server answers the browsers' offers, the public address it announces behind 1:1 NAT, and the
 * UDP ports its peer connections take, so a firewall can open them.
 */
import { z } from 'zod';
import { defineSection, setting } from '../../config/define.js';
import { commaList, publicAddress, udpPortRange } from '../../config/schemas.js';
import type { DriveChannelNetwork } from './drive-channel.js';
import type { AllowedNetwork } from './drive-channel-addresses.js';

const NETWORKS_MESSAGE = 'must be comma-separated networks address/prefix (e.g. 192.168.1.0/24, fd00::/8)';

/** `address/prefix, …` (IPv4 or IPv6 CIDR): the LAN networks the drive channel may send to. */
const networkList = () =>
  commaList()
    .refine(
      (networks) => networks.every((network) => z.union([z.cidrv4(), z.cidrv6()]).safeParse(network).success),
      NETWORKS_MESSAGE,
    )
    .transform((networks): AllowedNetwork[] =>
      networks.map((network) => {
        const [address = '', prefix = ''] = network.split('/');
        return { address, prefix: Number(prefix) };
      }),
    );

export interface DriveChannelConfig extends DriveChannelNetwork {
  /** DRIVE_CHANNEL=on: the server answers offers; off: it refuses them, the socket drives alone. */
  enabled: boolean;
}

export const controlConfig = defineSection(
  {
    driveChannel: setting({
      env: 'DRIVE_CHANNEL',
      schema: z.enum(['on', 'off'], 'must be on or off'),
      default: 'on',
      doc: "`on`: drivers' browsers also send their drive commands over a WebRTC DataChannel to the server (UDP, lost commands are not waited for); `off`: the server refuses it and every drive goes over the control socket (WebSocket).",
    }),
    driveChannelPublicIp: setting({
      env: 'DRIVE_CHANNEL_PUBLIC_IP',
      schema: publicAddress(),
      default: null,
      doc: "The server's public IPv4 or IPv6 address, announced to browsers as one more drive channel address: for a server behind 1:1 NAT (a cloud VM whose public IP is not on its interface). Unset: its interfaces' addresses only.",
    }),
    driveChannelUdpPorts: setting({
      env: 'DRIVE_CHANNEL_UDP_PORTS',
      schema: udpPortRange(),
      default: null,
      doc: "UDP ports of the drive channel, `min-max` within 1024–65535 (e.g. `40000-40100`), to open in the firewall: each driver's channel takes one port per server address (plus one for `DRIVE_CHANNEL_PUBLIC_IP`). Unset: ports the system picks.",
    }),
    driveChannelAllowedNetworks: setting({
      env: 'DRIVE_CHANNEL_ALLOWED_NETWORKS',
      schema: networkList(),
      default: '',
      empty: 'value',
      doc: "Private or otherwise special-purpose networks the drive channel may send its checks to, comma-separated `address/prefix` (e.g. `192.168.1.0/24` when drivers' phones and the server share the venue's LAN and browsers show their addresses). Unset: only public addresses, ports from 1024, never the server's own (docs/security.md \"The drive channel\").",
    }),
  },
  ({
    driveChannel,
    driveChannelPublicIp,
    driveChannelUdpPorts,
    driveChannelAllowedNetworks,
  }): { driveChannel: DriveChannelConfig } => ({
    driveChannel: {
      enabled: driveChannel === 'on',
      publicIp: driveChannelPublicIp,
      udpPorts: driveChannelUdpPorts,
      allowedNetworks: driveChannelAllowedNetworks,
    },
  }),
);
