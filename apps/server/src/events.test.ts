import { describe, expect, it } from 'vitest';
import { type DomainEventEnvelope, EventBus, type EventTransport, type FactSource } from './events.js';

function recordingLog() {
  const errors: { details: object; message: string }[] = [];
  return { errors, log: { error: (details: object, message: string) => errors.push({ details, message }) } };
}

describe('EventBus', () => {
  it('delivers a fact to every listener of its name, before emit returns', () => {
    const bus = new EventBus();
    const heard: string[] = [];
    bus.on('car.online', ({ carId }) => heard.push(`a${carId}`));
    bus.on('car.online', ({ carId }) => heard.push(`b${carId}`));
    bus.on('car.offline', () => heard.push('offline'));
    bus.emit('car.online', { carId: 7 });
    expect(heard).toEqual(['a7', 'b7']);
  });

  it('isolates a throwing listener: the others still hear, the emitter does not throw, it is logged', () => {
    const { errors, log } = recordingLog();
    const bus = new EventBus({ log });
    const heard: number[] = [];
    bus.on('car.deleted', () => {
      throw new Error('listener bug');
    });
    bus.on('car.deleted', ({ carId }) => heard.push(carId));
    expect(() => bus.emit('car.deleted', { carId: 3 })).not.toThrow();
    expect(heard).toEqual([3]);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.message).toBe('domain event listener failed');
    expect(errors[0]?.details).toMatchObject({ event: 'car.deleted' });
  });

  it('logs a listener whose promise rejects', async () => {
    const { errors, log } = recordingLog();
    const bus = new EventBus({ log });
    bus.on('car.offline', async () => {
      throw new Error('async bug');
    });
    bus.emit('car.offline', { carId: 1 });
    await new Promise((resolve) => setImmediate(resolve));
    expect(errors.map((e) => e.message)).toEqual(['domain event listener failed']);
  });

  it('checks facts against their schema: dropped and logged, or thrown when strict', () => {
    const { errors, log } = recordingLog();
    const bus = new EventBus({ log });
    const heard: unknown[] = [];
    bus.on('car.session-started', (event) => heard.push(event));
    const notIso = {
      carId: 1,
      userId: 2,
      username: 'ada',
      sessionId: 3,
      expiresAt: 'tomorrow',
    };
    bus.emit('car.session-started', notIso);
    expect(heard).toEqual([]);
    expect(errors[0]?.message).toBe('invalid domain event dropped');
    const strict = new EventBus({ strict: true });
    expect(() => strict.emit('car.session-started', notIso)).toThrow(/invalid car.session-started event/);
  });

  it('subscribes a module’s handlers at once and unsubscribes them at once', () => {
    const bus = new EventBus();
    const heard: string[] = [];
    const off = bus.onAll({
      'car.online': () => heard.push('online'),
      'car.offline': () => heard.push('offline'),
    });
    bus.emit('car.online', { carId: 1 });
    off();
    bus.emit('car.offline', { carId: 1 });
    expect(heard).toEqual(['online']);
  });

  it('publishes through its transport and delivers what the transport brings back', () => {
    // A transport that serializes like Redis would: what arrives is plain JSON.
    const wire: string[] = [];
    let deliver: (event: DomainEventEnvelope, source: FactSource) => void = () => undefined;
    const transport: EventTransport = {
      publish: (event) => {
        wire.push(JSON.stringify(event));
      },
      subscribe: (handler) => {
        deliver = handler;
      },
    };
    const bus = new EventBus({ transport });
    const heard: unknown[] = [];
    bus.on('car.code-generated', (event) => heard.push(event));
    bus.emit('car.code-generated', { carId: 4, expiresAt: '2026-01-01T00:15:00.000Z' });
    expect(heard).toEqual([]);
    for (const message of wire) deliver(JSON.parse(message) as DomainEventEnvelope, 'here');
    expect(heard).toEqual([{ carId: 4, expiresAt: '2026-01-01T00:15:00.000Z' }]);
  });

  it('runs each handler where it says: every instance, where the fact was published, or on the leader', () => {
    // Facts from this instance and from another one, as the Redis transport delivers them.
    let deliver: (event: DomainEventEnvelope, source: FactSource) => void = () => undefined;
    const transport: EventTransport = {
      publish: (event) => deliver(event, 'here'),
      subscribe: (handler) => {
        deliver = handler;
      },
    };
    let leading = false;
    const bus = new EventBus({ transport, leads: () => leading });
    const heard: string[] = [];
    bus.onAll({ 'car.online': ({ carId }) => heard.push(`every ${carId}`) }, 'every');
    bus.onAll({ 'car.online': ({ carId }) => heard.push(`origin ${carId}`) }, 'origin');
    bus.onAll({ 'car.online': ({ carId }) => heard.push(`leader ${carId}`) }, 'leader');

    bus.emit('car.online', { carId: 1 });
    deliver({ name: 'car.online', payload: { carId: 2 } }, 'elsewhere');
    leading = true;
    bus.emit('car.online', { carId: 3 });
    deliver({ name: 'car.online', payload: { carId: 4 } }, 'elsewhere');

    expect(heard).toEqual([
      'every 1',
      'origin 1',
      'every 2',
      'every 3',
      'origin 3',
      'leader 3',
      'every 4',
      'leader 4',
    ]);
  });

  it('in one process every place is here: each handler runs once', () => {
    const bus = new EventBus();
    const heard: string[] = [];
    for (const place of ['every', 'origin', 'leader'] as const)
      bus.on('car.offline', () => heard.push(place), place);
    bus.emit('car.offline', { carId: 1 });
    expect(heard).toEqual(['every', 'origin', 'leader']);
  });
});
