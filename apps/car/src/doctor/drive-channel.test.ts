import { describe, expect, it } from 'vitest';
import { answerAddresses } from './drive-channel.js';

describe("the server's drive channel addresses", () => {
  it('lists the UDP candidates of an answer once each, for the failure line', () => {
    const sdp = [
      'v=0',
      'a=candidate:1 1 udp 2130706431 192.0.2.2 47310 typ host',
      'a=candidate:2 1 UDP 2130706175 203.0.113.7 47311 typ host',
      'a=candidate:1 1 udp 2130706431 192.0.2.2 47310 typ host',
      'a=candidate:3 1 tcp 1518280447 192.0.2.2 9 typ host tcptype active',
      'a=end-of-candidates',
    ].join('\r\n');
    expect(answerAddresses(sdp)).toEqual(['192.0.2.2:47310', '203.0.113.7:47311']);
    expect(answerAddresses('v=0\r\n')).toEqual([]);
  });
});
