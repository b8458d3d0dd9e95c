/**
 * Schemas the settings tables share. Each parses the text of one environment variable; its
 * messages complete "<VARIABLE> …" in a ConfigError.
 */
import { PublicConfig } from '@telerace/protocol';
import { z } from 'zod';

export const TRUE_VALUES = ['true', '1', 'yes'];
export const FALSE_VALUES = ['false', '0', 'no'];

/** A whole number in [min, max], written with digits only (no sign, no exponent). */
export function integerBetween(
  min: number,
  max: number,
  message = `must be an integer between ${min} and ${max}`,
) {
  const digits = Math.max(String(max).length, 1);
  return z
    .string()
    .regex(new RegExp(`^\\d{1,${digits}}$`), message)
    .transform(Number)
    .refine((n) => n >= min && n <= max, message);
}

export const positiveInteger = () => integerBetween(1, 999_999_999, 'must be a positive integer');

/** `true`/`1`/`yes` or `false`/`0`/`no`, in any case. */
export const boolean = () =>
  z
    .string()
    .transform((value) => value.toLowerCase())
    .refine((value) => TRUE_VALUES.includes(value) || FALSE_VALUES.includes(value), 'must be true or false')
    .transform((value) => TRUE_VALUES.includes(value));

/** A URL with one of the given protocols; `article` is the one its first protocol reads with. */
export function urlOf(protocols: readonly string[], article: 'a' | 'an') {
  const names = protocols.map((protocol) => `${protocol}://`).join(' or ');
  return z
    .string()
    .refine(
      (url) => URL.canParse(url) && protocols.some((protocol) => new URL(url).protocol === `${protocol}:`),
      `must be ${article} ${names} URL`,
    );
}

export const httpUrl = () => urlOf(['http', 'https'], 'an');

/** Links shown by the web app: the same rule as the protocol's, so config can't produce what it rejects. */
export const link = () =>
  PublicConfig.shape.promoVideoUrl
    .unwrap()
    .refine((value) => value.startsWith('/') || URL.canParse(value), 'must be a valid URL');

/** Comma-separated values; blanks between commas are ignored. */
export const commaList = () =>
  z.string().transform((value) =>
    value
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== ''),
  );

/** Comma-separated ICE server URLs of the given schemes. */
export const iceUrlList = (schemes: readonly string[]) =>
  commaList().refine(
    (urls) => urls.every((url) => new RegExp(`^(${schemes.join('|')}):[^\\s,]+$`).test(url)),
    `must be comma-separated ${schemes.map((scheme) => `${scheme}:`).join(' or ')} URLs`,
  );

/** An IPv4 or IPv6 literal; not the "any address" of HOST, which no browser can send to. */
export const publicAddress = () =>
  z
    .union([z.ipv4(), z.ipv6()], 'must be an IPv4 or IPv6 address')
    .refine(
      (address) => address !== '0.0.0.0' && address !== '::',
      'must be the address browsers reach the server at, not 0.0.0.0 or ::',
    );

/** An inclusive range of UDP ports. */
export interface UdpPortRange {
  min: number;
  max: number;
}

const PORTS = { min: 1024, max: 65535 } as const;
const PORT_RANGE_MESSAGE = `must be a UDP port range min-max (e.g. 40000-40100) within ${PORTS.min}–${PORTS.max}, min below max`;

/** `min-max`, both within PORTS; werift refuses a range of one port (min must be below max). */
export const udpPortRange = () =>
  z
    .string()
    .regex(/^\d{1,5}-\d{1,5}$/, PORT_RANGE_MESSAGE)
    .transform((range): UdpPortRange => {
      const [min, max] = range.split('-').map(Number) as [number, number];
      return { min, max };
    })
    .refine(({ min, max }) => min >= PORTS.min && max <= PORTS.max && min < max, PORT_RANGE_MESSAGE);
