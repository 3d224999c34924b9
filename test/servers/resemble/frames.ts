/** JSON messages the server sends, in the shapes of docs/providers.md A.4. */

export interface ResembleErrorFrame {
  type: 'error';
  success: false;
  error_name: string;
  message: string;
  status_code?: number;
  error_params?: { explanation: string };
  request_id?: number;
}

export interface AudioTimestamps {
  graph_chars: string[];
  graph_times: Array<[number, number]>;
  phon_chars: string[];
  phon_times: Array<[number, number]>;
}

/** `statusCode: null` leaves `status_code` out (a shape clients must survive). */
export function errorFrame(fields: {
  errorName: string;
  statusCode: number | null;
  message: string;
  explanation?: string;
  requestId?: number;
}): string {
  const frame: ResembleErrorFrame = {
    type: 'error',
    success: false,
    error_name: fields.errorName,
    message: fields.message,
  };
  if (fields.statusCode !== null) frame.status_code = fields.statusCode;
  if (fields.explanation !== undefined) frame.error_params = { explanation: fields.explanation };
  if (fields.requestId !== undefined) frame.request_id = fields.requestId;
  return JSON.stringify(frame);
}

/** The `BadJSON` 400 the service sends for unparsable or incomplete requests. */
export function badJsonFrame(explanation: string, requestId?: number, errorName = 'BadJSON'): string {
  return errorFrame({
    errorName,
    statusCode: 400,
    message: `Invalid JSON: ${explanation}`,
    explanation,
    requestId,
  });
}

export function connectionFailureFrame(): string {
  return errorFrame({
    errorName: 'ConnectionFailure',
    statusCode: 401,
    message: 'Unauthorized: invalid or missing API key',
  });
}

export function audioFrame(
  audio: Buffer,
  requestId: number,
  sampleRate: number,
  timestamps?: AudioTimestamps,
): string {
  return JSON.stringify({
    type: 'audio',
    audio_content: audio.toString('base64'),
    ...(timestamps ? { audio_timestamps: timestamps } : {}),
    sample_rate: sampleRate,
    request_id: requestId,
  });
}

export function audioEndFrame(requestId: number): string {
  return JSON.stringify({ type: 'audio_end', request_id: requestId });
}
