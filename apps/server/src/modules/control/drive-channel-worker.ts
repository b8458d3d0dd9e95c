/**
 * The drive channel worker's entry (a thread of the server, started by the first offer): the
 * werift peers of every drive channel (drive-channel-peers.ts), off the relay's event loop. The
 * build bundles it as dist/drive-channel-worker.js beside dist/main.js.
 */
import { parentPort } from 'node:worker_threads';
import { ChannelPeers, type ToPeers } from './drive-channel-peers.js';

const port = parentPort;
if (!port) throw new Error('drive-channel-worker runs as a worker thread');
const peers = new ChannelPeers((message) => port.postMessage(message));
port.on('message', (message: ToPeers) => peers.handle(message));
