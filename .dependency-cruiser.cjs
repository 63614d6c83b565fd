// The import rules of src/ (docs/architecture.md), checked by `npm test` (scripts/test.ts) with
// `npx depcruise src --config .dependency-cruiser.cjs`. Type-only imports count: a cycle through types
// is still a cycle for a reader.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Modules of src/ never import each other in a circle: move the shared part to a module both import.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'domain-is-pure',
      severity: 'error',
      comment: 'src/domain is pure logic over its own plain types: no storage, no use cases, no HTTP, no wire contract.',
      from: { path: '^src/domain/' },
      to: { path: '^src/(store|services|http|api|jobs)/|^src/(app|commands|main|lifecycle)[.]ts$' },
    },
    {
      name: 'store-below-services',
      severity: 'error',
      comment: 'src/store holds queries and table types; it knows no use case, no HTTP and no wire contract.',
      from: { path: '^src/store/' },
      to: { path: '^src/(services|http|api|jobs)/|^src/(app|commands|main|lifecycle)[.]ts$' },
    },
    {
      name: 'services-below-http',
      severity: 'error',
      comment: 'Use cases (src/services) never see Fastify or the routes; they take the contract types (src/api).',
      from: { path: '^src/services/' },
      to: { path: '^src/(http|jobs)/|^src/(app|commands|main|lifecycle)[.]ts$' },
    },
    {
      name: 'jobs-below-http',
      severity: 'error',
      comment: 'Job handlers (src/jobs) run use cases in the worker; they never see Fastify or the routes.',
      from: { path: '^src/jobs/' },
      to: { path: '^src/http/|^src/(app|main|lifecycle)[.]ts$' },
    },
    {
      name: 'api-is-the-contract',
      severity: 'error',
      comment: 'src/api holds the wire schemas and their types; routes, services and jobs import it, it imports none of them.',
      from: { path: '^src/api/' },
      to: { path: '^src/(http|services|store|jobs)/|^src/(app|commands|main|lifecycle)[.]ts$' },
    },
    {
      name: 'lib-is-the-bottom',
      severity: 'error',
      comment: 'src/lib holds helpers every layer may use; it imports none of the layers.',
      from: { path: '^src/lib/' },
      to: { path: '^src/(domain|store|services|http|api|jobs)/|^src/(app|commands|main|lifecycle)[.]ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
