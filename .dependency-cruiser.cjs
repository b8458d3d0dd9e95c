/**
 * The server's module walls, checked by `npm run lint` (docs/architecture.md "Module walls"). A
 * module (a folder under apps/server/src/modules/ or src/integrations/) keeps its queries to
 * itself: another module goes through its service, and what every module writes in its own
 * transactions (the members' rows, the audit log) lives in the shared kernel, src/kernel/. The
 * HTTP layer and the socket kit import no module at all. Import cycles are Biome's to refuse
 * (`noImportCycles` in biome.json); cycles of module needs, `npm run lint:wiring`'s.
 */
const MODULE = '^apps/server/src/(modules|integrations)/([^/]+)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'module-walls',
      comment:
        "A module imports only its own repos and the kernel's: reach another module through its service (a port in your deps), or move what is truly shared to src/kernel/.",
      severity: 'error',
      from: { path: MODULE },
      to: { path: '[.]repo[.]ts$', pathNot: '^apps/server/src/($1/$2|kernel)/' },
    },
    {
      name: 'edges-import-no-module',
      comment:
        'The HTTP layer and the socket kit import no module: what they need from one (the member check) is a port they declare (http/authenticate.ts `Authenticator`) and the composition root hands them.',
      severity: 'error',
      from: { path: '^apps/server/src/(http|sockets)/', pathNot: '[.]test[.]ts$' },
      to: { path: '^apps/server/src/(modules|integrations)/' },
    },
    {
      name: 'module-walls-outside',
      comment:
        "Code outside the modules (http/, sockets/, scale-out/, test/, the kernel, scripts) reads no module's repo: use its service or the kernel.",
      severity: 'error',
      from: { pathNot: MODULE },
      to: { path: `${MODULE}.+[.]repo[.]ts$` },
    },
  ],
  options: {
    // swc parses the TypeScript (TypeScript 7 has no JavaScript API): it keeps type-only imports,
    // which count as they tie files together as much as any other.
    parser: 'swc',
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist)/' },
  },
};
