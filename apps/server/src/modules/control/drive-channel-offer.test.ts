/**
 * A drive channel offer read before werift sees it (issue 39): DataChannel only, RFC 8839
 * credentials, candidates taken out of the SDP to go through the address policy.
 */
import { describe, expect, it } from 'vitest';
import { SAMPLE_DRIVE_OFFER } from '../../test/drive-channel-client.js';
import { readOffer } from './drive-channel-offer.js';

const withLines = (...extra: string[]) => `${SAMPLE_DRIVE_OFFER.trimEnd()}\r\n${extra.join('\r\n')}\r\n`;
const replacing = (from: RegExp, to: string) => SAMPLE_DRIVE_OFFER.replace(from, to);

describe('readOffer', () => {
  it("takes a browser's offer as it is when it has no candidates", () => {
    expect(readOffer(SAMPLE_DRIVE_OFFER)).toEqual({ sdp: SAMPLE_DRIVE_OFFER, candidates: [] });
  });

  it('takes the candidates out of the SDP, in order, with the end-of-candidates and remote-candidates lines', () => {
    const reading = readOffer(
      withLines(
        'a=candidate:1 1 udp 2113937151 127.0.0.2 41000 typ host',
        'a=candidate:2 1 udp 1677729535 8.8.4.4 41001 typ srflx raddr 0.0.0.0 rport 0',
        'a=remote-candidates:1 127.0.0.3 41002',
        'a=end-of-candidates',
      ),
    );
    expect(reading).toEqual({
      sdp: SAMPLE_DRIVE_OFFER.trimEnd().concat('\r\n'),
      candidates: [
        'candidate:1 1 udp 2113937151 127.0.0.2 41000 typ host',
        'candidate:2 1 udp 1677729535 8.8.4.4 41001 typ srflx raddr 0.0.0.0 rport 0',
      ],
    });
  });

  it('reads \\n line ends too, and answers with \\r\\n', () => {
    const reading = readOffer(SAMPLE_DRIVE_OFFER.replaceAll('\r\n', '\n'));
    expect(reading).toEqual({ sdp: SAMPLE_DRIVE_OFFER, candidates: [] });
  });

  it.each([
    ['a video offer', 'v=0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\n'],
    ['two m-lines', withLines('m=application 9 UDP/DTLS/SCTP webrtc-datachannel')],
    ['no ufrag', replacing(/a=ice-ufrag:.*\r\n/, '')],
    ['no password', replacing(/a=ice-pwd:.*\r\n/, '')],
    ['a ufrag of 3 characters', replacing(/a=ice-ufrag:\S+/, 'a=ice-ufrag:abc')],
    ['a ufrag of 257 characters', replacing(/a=ice-ufrag:\S+/, `a=ice-ufrag:${'a'.repeat(257)}`)],
    ['a ufrag with a space', replacing(/a=ice-ufrag:\S+/, 'a=ice-ufrag:ab cd')],
    ['a ufrag carrying a log line', replacing(/a=ice-ufrag:\S+/, 'a=ice-ufrag:<13>Dec  7 sshd[1]: Accepted')],
    [
      'a ufrag with a colon (it splits the STUN USERNAME)',
      replacing(/a=ice-ufrag:\S+/, 'a=ice-ufrag:abcd:efgh'),
    ],
    ['a ufrag with a non-ASCII letter', replacing(/a=ice-ufrag:\S+/, 'a=ice-ufrag:abcdé')],
    ['a password of 21 characters', replacing(/a=ice-pwd:\S+/, `a=ice-pwd:${'p'.repeat(21)}`)],
    ['a password of 257 characters', replacing(/a=ice-pwd:\S+/, `a=ice-pwd:${'p'.repeat(257)}`)],
    ['a password with a dash', replacing(/a=ice-pwd:\S+/, `a=ice-pwd:${'p'.repeat(21)}-`)],
    ['a second, invalid ufrag at session level', withLines('a=ice-ufrag:no spaces allowed')],
  ])('refuses %s', (_, sdp) => {
    expect(readOffer(sdp)).toHaveProperty('invalid');
  });

  it("takes RFC 8839's whole alphabet at both ends of the lengths", () => {
    for (const [ufrag, pwd] of [
      ['ab+/', `${'A1+/'.repeat(5)}zz`],
      ['u'.repeat(256), 'p'.repeat(256)],
    ])
      expect(
        readOffer(
          SAMPLE_DRIVE_OFFER.replace(/a=ice-ufrag:\S+/, `a=ice-ufrag:${ufrag}`).replace(
            /a=ice-pwd:\S+/,
            `a=ice-pwd:${pwd}`,
          ),
        ),
      ).toHaveProperty('sdp');
  });
});
