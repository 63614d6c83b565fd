// `node --import ./tests/helpers/import-recorder.mjs …`: appends the URL of every module the process
// imports to the file named by PUNCHCARD_IMPORT_LOG, so a test can tell which packages were loaded.
import { register } from 'node:module';

const hooks = `
import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  if (process.env.PUNCHCARD_IMPORT_LOG) appendFileSync(process.env.PUNCHCARD_IMPORT_LOG, result.url + '\\n');
  return result;
}
`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);
