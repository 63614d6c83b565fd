import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from './config.ts';

// `punchcard <command>`: start (HTTP server and worker), migrate, worker (jobs only), keys, users. Arguments are
// read before anything else, so `--help` and mistakes never open the database or start a server; the
// engine itself (src/commands.ts) is loaded only when a command runs.

interface Command {
  summary: string;
  usage: string;
  options: Record<string, { type: 'boolean'; help: string }>;
  /** What follows the command (`list`, `reset-password EMAIL`), each with how many arguments it takes; none when absent. */
  actions?: Record<string, { args: string[]; help: string }>;
}

const COMMANDS: Record<string, Command> = {
  start: {
    summary: 'migrate, then serve the API (and run the worker unless PUNCHCARD_WORKER=false)',
    usage: 'punchcard start',
    options: {},
  },
  migrate: { summary: 'bring the database schema up to date, then exit', usage: 'punchcard migrate', options: {} },
  worker: {
    summary: 'run background jobs only (a separate worker process; /metrics on PUNCHCARD_WORKER_METRICS_PORT if set)',
    usage: 'punchcard worker',
    options: {},
  },
  keys: {
    summary: 'print the default project\'s key ids and where the secrets are',
    usage: 'punchcard keys [--rotate]',
    options: { rotate: { type: 'boolean', help: 'replace the generated keys with new ones and print their secrets once' } },
  },
  users: {
    summary: 'list the console users, or print a one-time password reset link for one (when no ADMIN can sign in)',
    usage: 'punchcard users list | punchcard users reset-password EMAIL',
    options: {},
    actions: {
      list: { args: [], help: 'e-mail, name, status (invited or active) and the projects and roles of every console user' },
      'reset-password': { args: ['EMAIL'], help: "print a one-time link that sets a new password for that account (an invitation link if it never set one)" },
    },
  },
};

const USAGE = [
  'usage: punchcard <command> [options]',
  '',
  ...Object.entries(COMMANDS).map(([name, command]) => `  ${name.padEnd(9)}${command.summary}`),
  '',
  '  punchcard <command> --help   options of one command',
  '  punchcard --version          the version',
  '',
  'Settings come from the environment (DATABASE_URL, PORT, …): see the README, "Configuration".',
].join('\n');

function commandHelp(name: string, command: Command): string {
  const actions = Object.entries(command.actions ?? {}).map(([action, spec]) => `  ${[action, ...spec.args].join(' ').padEnd(28)}${spec.help}`);
  const options = Object.entries(command.options).map(([option, spec]) => `  --${option.padEnd(10)}${spec.help}`);
  return [`usage: ${command.usage}`, '', `${command.summary}.`, '', ...actions, ...(actions.length > 0 ? [''] : []), ...options, `  --${'help'.padEnd(10)}show this help`].join('\n');
}

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** A mistake on the command line: one line on stderr, exit code 2, nothing started. */
function usageError(message: string, help = 'punchcard --help'): never {
  process.stderr.write(`punchcard: ${message} (see ${help})\n`);
  process.exit(2);
}

function fail(message: string): never {
  process.stderr.write(`punchcard: ${message}\n`);
  process.exit(1);
}

async function main(argv: string[]): Promise<void> {
  const [first, ...rest] = argv;
  if (first === undefined || first === 'help' || first === '--help' || first === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (first === '--version' || first === '-v' || first === 'version') {
    process.stdout.write(`punchcard ${version()}\n`);
    return;
  }
  if (first.startsWith('-')) usageError(`unknown option ${first}`);
  const command = COMMANDS[first];
  if (!command) usageError(`unknown command "${first}"; commands: ${Object.keys(COMMANDS).join(', ')}`);

  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: rest,
      options: { ...command.options, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: command.actions !== undefined,
    }));
  } catch (error) {
    usageError(`${first}: ${describeArgumentError(error)}`, `punchcard ${first} --help`);
  }
  if (values.help === true) {
    process.stdout.write(`${commandHelp(first, command)}\n`);
    return;
  }
  if (command.actions) checkAction(first, command.actions, positionals);

  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) fail(`configuration error: ${error.message}`);
    throw error;
  }
  const { keys, migrate, start, users } = await import('./commands.ts');
  switch (first) {
    case 'start':
      return start(config, true);
    case 'worker':
      return start(config, false);
    case 'migrate':
      return migrate(config);
    case 'keys':
      return keys(config, values.rotate === true);
    case 'users':
      return users(config, positionals[0] === 'list' ? { kind: 'list' } : { kind: 'reset-password', email: positionals[1] as string });
  }
}

/** The action and its arguments are known and complete, else a usage error (exit 2). */
function checkAction(name: string, actions: NonNullable<Command['actions']>, positionals: readonly string[]): void {
  const help = `punchcard ${name} --help`;
  const [action, ...args] = positionals;
  if (action === undefined) usageError(`${name}: which one? ${Object.keys(actions).join(', ')}`, help);
  const spec = actions[action];
  if (!spec) usageError(`${name}: unknown action "${action}"; actions: ${Object.keys(actions).join(', ')}`, help);
  if (args.length < spec.args.length) usageError(`${name} ${action}: missing ${spec.args.slice(args.length).join(' ')}`, help);
  if (args.length > spec.args.length) usageError(`${name} ${action}: unexpected argument ${args[spec.args.length] ?? ''}`, help);
}

/** node:util's parseArgs messages, in one short line. */
function describeArgumentError(error: unknown): string {
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message : String(error);
  const option = /'(-[^']*)'/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `unknown option ${option ?? message}`;
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') return `unexpected argument ${option ?? /'([^']*)'/.exec(message)?.[1] ?? ''}`.trim();
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') return `option ${option ?? ''} takes no value`;
  return message.split('\n')[0] ?? message;
}

// Holds the event loop open until the command settles: closing a SQLite handle waits on a thread that
// does not, and without this a command failing at start (a bad migration) exited 0 without a word.
const keepAlive = setInterval(() => undefined, 60_000);
main(process.argv.slice(2))
  .catch((error: unknown) => {
    fail(error instanceof Error ? error.message : String(error));
  })
  .finally(() => clearInterval(keepAlive));
