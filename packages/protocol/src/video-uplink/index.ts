/** The car's video uplink to the server (Node only): SRTP, loss repair and feedback. */

export * from './repair.js';
export * from './srtp.js';
