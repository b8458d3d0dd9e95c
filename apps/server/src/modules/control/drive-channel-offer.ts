/**
 * A browser's drive channel offer read before werift sees it (issue 39): one DataChannel and
 * nothing else, ICE credentials as RFC 8839 writes them, and its candidates taken out of the SDP.
 * Those candidates then go through the same address policy and the same count as trickled ones
 * (drive-channel.ts): werift would otherwise check every destination written in the SDP, and the
 * credentials, which werift copies into every check it sends, would carry a member's text.
 */

/** RFC 8839: ice-char = ALPHA / DIGIT / "+" / "/"; a ufrag of 4 to 256 of them, a password of 22 to 256. */
const ICE_UFRAG = /^[A-Za-z0-9+/]{4,256}$/;
const ICE_PWD = /^[A-Za-z0-9+/]{22,256}$/;

export type OfferReading =
  /** The SDP without its candidates, and those candidates (without `a=`), in order. */
  { sdp: string; candidates: string[] } | { invalid: string };

/** An offer of one DataChannel and nothing else (no audio or video for the server to take). */
function dataChannelOnly(lines: readonly string[]): boolean {
  const media = lines.filter((line) => line.startsWith('m='));
  return media.length === 1 && media[0]?.startsWith('m=application ') === true;
}

/** Every value of an attribute (`a=<name>:<value>`), session and media level alike. */
const valuesOf = (lines: readonly string[], name: string) =>
  lines.filter((line) => line.startsWith(`a=${name}:`)).map((line) => line.slice(name.length + 3));

const credentialsValid = (values: readonly string[], pattern: RegExp) =>
  values.length > 0 && values.every((value) => pattern.test(value));

/** Lines that name remote destinations, which only the policy may hand to werift. */
const isCandidateLine = (line: string) =>
  line.startsWith('a=candidate:') ||
  line === 'a=end-of-candidates' ||
  line.startsWith('a=remote-candidates:');

export function readOffer(sdp: string): OfferReading {
  const lines = sdp.split(/\r?\n/);
  if (!dataChannelOnly(lines)) return { invalid: 'not a DataChannel-only offer' };
  if (!credentialsValid(valuesOf(lines, 'ice-ufrag'), ICE_UFRAG)) return { invalid: 'ice-ufrag' };
  if (!credentialsValid(valuesOf(lines, 'ice-pwd'), ICE_PWD)) return { invalid: 'ice-pwd' };
  return {
    sdp: lines.filter((line) => !isCandidateLine(line)).join('\r\n'),
    candidates: lines.filter((line) => line.startsWith('a=candidate:')).map((line) => line.slice(2)),
  };
}
