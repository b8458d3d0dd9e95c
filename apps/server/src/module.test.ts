/** The composition root's order and its guard on what each module is handed (module.ts). */
import { describe, expect, it } from 'vitest';
import { declaredServices, moduleOrder, type ServiceName } from './module.js';
import { MODULES } from './modules/index.js';

/** Service names as the declarations write them (any string: these modules are made up). */
const names = (...list: string[]) => list as ServiceName[];
const module = (name: string, needs: string[] = [], provides: string[] = [], uses: string[] = []) => ({
  name,
  needs: names(...needs),
  provides: names(...provides),
  uses: names(...uses),
});
const order = (modules: ReturnType<typeof module>[]) => moduleOrder(modules).map(({ name }) => name);

describe('moduleOrder', () => {
  it('keeps the list as it is when every module comes after what it needs', () => {
    expect(order([module('a', [], ['x']), module('b', ['x'], ['y']), module('c', ['x', 'y'])])).toEqual([
      'a',
      'b',
      'c',
    ]);
  });

  it('moves a module listed before what it needs to just after it, the others keeping their places', () => {
    expect(
      order([module('cars', ['relay'], ['cars']), module('health'), module('control', [], ['relay'])]),
    ).toEqual(['health', 'control', 'cars']);
  });

  it('refuses a cycle of needs, naming each module and what it needs', () => {
    expect(() =>
      order([module('health'), module('cars', ['relay'], ['cars']), module('control', ['cars'], ['relay'])]),
    ).toThrow('module cycle: cars (needs relay) → control (needs cars) → cars');
  });

  it('lets modules use each other once the app runs: uses do not order', () => {
    expect(order([module('control', [], ['relay'], ['cars']), module('cars', ['relay'], ['cars'])])).toEqual([
      'control',
      'cars',
    ]);
  });

  it('refuses a need or a use nobody provides, and a service provided twice', () => {
    expect(() => order([module('a', ['ghost'])])).toThrow('module a needs "ghost", which no module provides');
    expect(() => order([module('a', [], [], ['ghost'])])).toThrow(
      'module a uses "ghost", which no module provides',
    );
    expect(() => order([module('a', [], ['x']), module('b', [], ['x'])])).toThrow(
      'service "x" is provided by both a and b',
    );
  });

  it("gives the server's modules in the order of their list: nothing at start-up or on a fact moved", () => {
    expect(moduleOrder(MODULES)).toEqual(MODULES);
  });
});

describe('declaredServices', () => {
  const built = { x: 'the x', y: 'the y', z: 'the z' };

  it('hands a module what it declared, and names what it did not', () => {
    let building = false;
    const services = declaredServices(module('a', ['x'], ['y']), built, () => building) as unknown as Record<
      string,
      string
    >;
    expect([services.x, services.y]).toEqual(['the x', 'the y']);
    expect(() => services.z).toThrow('module a uses "z" without declaring it (needs or uses)');
    expect({ ...services }).toEqual({ x: 'the x', y: 'the y' });
    building = true;
    expect(services.x).toBe('the x');
  });

  it('refuses a used service while the modules are being built, even one already built', () => {
    let building = true;
    const services = declaredServices(module('a', [], [], ['z']), built, () => building) as unknown as Record<
      string,
      string
    >;
    expect(() => services.z).toThrow('module a calls "z" while building: declare it in needs, not uses');
    building = false;
    expect(services.z).toBe('the z');
  });
});
