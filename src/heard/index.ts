export { HeardText, HeardTextAgent } from './heard-text.js';
export {
  DEFAULT_CHARS_PER_SECOND,
  type Heard,
  type HeardInput,
  type HeardSource,
  type VoicedSpan,
  type WordTiming,
  heardPrefix,
} from './heard-prefix.js';
export { ReplyTracker } from './tracker.js';
export { trackedTtsNode } from './tts-node.js';
export { type Interruptible, untilInterrupted } from './until-interrupted.js';
export { respellTimedWords } from './respell.js';
