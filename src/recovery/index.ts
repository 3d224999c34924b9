export { type DispatchInfo, type ResumeMetadata, encodeResumeMetadata, isResumeDispatch, readDispatchMetadata } from './dispatch-metadata.js';
export { RESUME_GREETINGS, resumeGreetingFor } from './greeting.js';
export { HISTORY_ATTRIBUTE, HISTORY_MAX_BYTES, HISTORY_MAX_CHARS, HISTORY_MAX_TURNS, type HistoryTurn, chatContextOf, decodeHistory, encodeHistory } from './history.js';
export { greetResumedCall, keepHistory, resumeGreeting } from './job.js';
export { recoveryApiOf, startJobRecovery } from './worker.js';
export { handOverIfRoomLost } from './lost-room.js';
