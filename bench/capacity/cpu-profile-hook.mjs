/**
 * Loaded with `node --import` into every worker process by `bench:capacity --cpu-profile DIR`
 * (NODE_OPTIONS, inherited by the job processes; Node refuses `--cpu-prof` there). Profiles the
 * process from its start and writes `<pid>.cpuprofile` into FIRSTWORD_CPU_PROFILE_DIR when it exits.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';

const dir = process.env.FIRSTWORD_CPU_PROFILE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  // 1 ms: fine enough to see a 10 ms audio frame's work, coarse enough not to dominate it.
  session.post('Profiler.setSamplingInterval', { interval: 1000 });
  session.post('Profiler.start');
  process.once('exit', () => {
    // A session on the process's own thread answers synchronously, so this works inside 'exit'.
    session.post('Profiler.stop', (error, result) => {
      if (!error) writeFileSync(join(dir, `${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
