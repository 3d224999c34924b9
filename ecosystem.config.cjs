/**
 * PM2 process file for the firstword worker.
 *
 *   PM2_KILL_SIGNAL=SIGTERM pm2 start ecosystem.config.cjs
 *
 * Loading this file builds the worker (scripts/build.mjs, as `npm start` does): after a pull,
 * `pm2 reload ecosystem.config.cjs` rebuilds and restarts; `pm2 restart firstword` alone does not
 * rebuild.
 *
 * The stop signal is not a per-app setting in PM2: the daemon sends PM2_KILL_SIGNAL (SIGINT
 * by default), read from its own environment when it starts. Start the daemon with
 * PM2_KILL_SIGNAL=SIGTERM as above (`pm2 kill` first if one is already running). The worker
 * drains on SIGINT just the same, so a daemon left on the default still lets calls finish.
 * See docs/operations.md.
 */
const { execFileSync } = require('node:child_process');
const path = require('node:path');

// The worker runs compiled JavaScript (dist/): build what changed before PM2 starts it, so it never
// runs an older build than the source (a no-op in well under a second when nothing changed).
// A failed build throws here, and PM2 starts nothing.
execFileSync(process.execPath, [path.join(__dirname, 'scripts', 'build.mjs')], { cwd: __dirname, stdio: 'inherit' });

// Keep in step with the worker: it waits this long for calls to end (default 30 min).
const drainSeconds = Number(process.env.SHUTDOWN_DRAIN_TIMEOUT_S) || 1800;

module.exports = {
  apps: [
    {
      name: 'firstword',
      cwd: __dirname,
      // `npm start`'s command as one process, started directly (interpreter 'none'): PM2's
      // signal and IPC channel reach the worker itself, not npm or PM2's own module wrapper
      // (which would hide the entry file from the agent's "run directly?" check). The condition
      // makes the TTS plugin resolve to its compiled files too, and the young-generation cap keeps
      // each call's process about 40 MB smaller (docs/operations.md); the job processes inherit both.
      script: 'node',
      interpreter: 'none',
      args: ['--max-semi-space-size=2', '--conditions=firstword-compiled', path.join('dist', 'agent.js'), 'start'],
      exec_mode: 'fork',
      instances: 1,

      // Online only once the worker has registered with LiveKit: it sends process.send('ready').
      wait_ready: true,
      listen_timeout: 120_000,

      // After the stop signal, PM2 waits this long before SIGKILL: the drain, plus 90 s for
      // the job processes to close. PM2's default (1.6 s) would hang up on every caller.
      kill_timeout: (drainSeconds + 90) * 1000,
      // The stop signal goes to the whole process tree; job processes ignore it and are
      // closed by the worker, and the final SIGKILL reaches them too.
      treekill: true,

      autorestart: true,
      exp_backoff_restart_delay: 1000,
      env: { NODE_ENV: 'production' },
    },
  ],
};
