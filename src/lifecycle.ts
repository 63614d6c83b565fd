// How a long-running `punchcard start` or `punchcard worker` ends (README "Stopping and restarting"):
// SIGTERM or SIGINT runs the stop sequence once, and so does the death of the npm process that
// launched us. npm runs a package script through `sh -c`, and a shell that does not exec its command
// (dash, Debian's /bin/sh) dies on the SIGTERM npm forwards and leaves the server running as an orphan;
// the package scripts exec, but `npx punchcard start` cannot, so the server also watches its parent.

export type StopReason = 'SIGTERM' | 'SIGINT' | 'parent process exited';

export interface LifecycleOptions {
  /** Runs once, whatever asks first; the process exits with its code when it settles. */
  stop(reason: StopReason): Promise<number>;
  /** Longest the stop may take before the process exits anyway (code 1). */
  hardLimitMs: number;
  onHardLimit(): void;
}

/** Whether npm (npm start, npm run, npx) launched this process, directly or through a shell. */
function launchedByNpm(env: NodeJS.ProcessEnv): boolean {
  return env.npm_lifecycle_event !== undefined || env.npm_command !== undefined;
}

const PARENT_CHECK_MS = 1_000;

export function stopOnSignals(options: LifecycleOptions): void {
  let stopping = false;
  const run = (reason: StopReason) => {
    // npm forwards the signal a terminal already sent to the whole process group: one stop only.
    if (stopping) return;
    stopping = true;
    // Referenced on purpose: it keeps the event loop alive until the stop sequence ends, even while it
    // waits on work that holds no reference of its own (the database's last WAL sync runs on a thread).
    setTimeout(() => {
      options.onHardLimit();
      process.exit(1);
    }, options.hardLimitMs);
    options.stop(reason).then(
      (code) => process.exit(code),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', () => run('SIGTERM'));
  process.on('SIGINT', () => run('SIGINT'));

  if (launchedByNpm(process.env)) {
    const parent = process.ppid;
    const watch = setInterval(() => {
      if (process.ppid !== parent) {
        clearInterval(watch);
        run('parent process exited');
      }
    }, PARENT_CHECK_MS);
    watch.unref();
  }
}
