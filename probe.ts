import { initializeLogger } from '@livekit/agents';
import { loadHumanTurn } from './bench/turn/human-turns.js';
initializeLogger({ pretty: false, level: 'error' });
const a = await loadHumanTurn('/tmp/hb/t.flac','ko'); const b = await loadHumanTurn('/work/speech/ko-deeply/sub100120a00003.wav','ko');
console.log(a.pausesMs, b.pausesMs, a.samples.length, b.samples.length);
