import { PublicConfig } from '@telerace/protocol';
import { describe, expect, it } from 'vitest';
import { parsePublicConfig } from './public-config';

const valid = {
  promoVideoUrl: '/media/promo.mp4',
  community: { streaming: 'https://www.twitch.tv/telerace', video: null, chat: 'http://discord.gg/x' },
  recaptchaSiteKey: 'site-key',
  socialProviders: { twitch: true, youtube: false, discord: true },
  supportEmail: 'help@racing.example',
};

const withCommunity = (community: Record<string, unknown>) => ({
  ...valid,
  community: { ...valid.community, ...community },
});

/** Bodies the server could send, valid or not; each is checked against the protocol's schema. */
const BODIES: [string, unknown][] = [
  ['a full config', valid],
  [
    'nulls everywhere',
    {
      promoVideoUrl: null,
      community: { streaming: null, video: null, chat: null },
      recaptchaSiteKey: null,
      socialProviders: { twitch: false, youtube: false, discord: false },
      supportEmail: null,
    },
  ],
  ['no support address', { ...valid, supportEmail: undefined }],
  ['a support address without @', { ...valid, supportEmail: 'help' }],
  ['a support address with a blank', { ...valid, supportEmail: 'help me@racing.example' }],
  ['a number for the support address', { ...valid, supportEmail: 5 }],
  ['no social providers', { ...valid, socialProviders: undefined }],
  [
    'a provider flag that is not a boolean',
    { ...valid, socialProviders: { ...valid.socialProviders, twitch: 1 } },
  ],
  ['a missing provider flag', { ...valid, socialProviders: { twitch: true, youtube: true } }],
  ['an embeddable player page', { ...valid, promoVideoUrl: 'https://www.youtube.com/embed/abc' }],
  ['unknown fields', { ...valid, extra: 1, community: { ...valid.community, other: 'x' } }],
  ['an empty site key', { ...valid, recaptchaSiteKey: '' }],
  ['a protocol-relative link', { ...valid, promoVideoUrl: '//evil.example/promo.mp4' }],
  ['a javascript: link', { ...valid, promoVideoUrl: 'javascript:alert(1)' }],
  ['a relative path', withCommunity({ chat: 'media/x' })],
  ['a data: link', withCommunity({ video: 'data:text/html,x' })],
  ['a number for a link', withCommunity({ streaming: 3 })],
  ['a missing link', { ...valid, community: { streaming: null, video: null } }],
  ['a missing promo video', { community: valid.community, recaptchaSiteKey: null }],
  ['a missing site key', { promoVideoUrl: null, community: valid.community }],
  ['a number for the site key', { ...valid, recaptchaSiteKey: 5 }],
  ['no community', { promoVideoUrl: null, recaptchaSiteKey: null }],
  ['a community list', { ...valid, community: [] }],
  ['null', null],
  ['a string', 'config'],
  ['an array', []],
];

describe('parsePublicConfig', () => {
  it.each(BODIES)('answers as the protocol schema does for %s', (_name, body) => {
    const expected = PublicConfig.safeParse(body);
    if (expected.success) {
      expect(parsePublicConfig(body)).toEqual(expected.data);
    } else {
      expect(() => parsePublicConfig(body)).toThrow(/public config/);
    }
  });

  it('leaves out fields the schema does not know', () => {
    expect(parsePublicConfig({ ...valid, extra: 1 })).not.toHaveProperty('extra');
  });
});
