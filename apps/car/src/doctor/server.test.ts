import { describe, expect, it } from 'vitest';
import { readyUrl } from './server.js';

describe('the ready probe URL', () => {
  it('is <server>/api/ready over http(s) for every server URL the agent takes', () => {
    expect(readyUrl('https://race.example.com').href).toBe('https://race.example.com/api/ready');
    expect(readyUrl('wss://race.example.com/telerace/').href).toBe(
      'https://race.example.com/telerace/api/ready',
    );
    expect(readyUrl('ws://10.0.0.2:3000?x=1#y').href).toBe('http://10.0.0.2:3000/api/ready');
  });
});
