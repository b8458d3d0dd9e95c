export * from './account.js';
export * from './admin.js';
export * from './api.js';
export * from './cars.js';
export * from './constants.js';
export * from './errors.js';
export * from './tickets.js';
export * from './video.js';
