/** The run as markdown, ready to paste into docs/ (docs/provider-fidelity.md says where). */
import type { CheckResult, CheckSettings } from './check.js';
import { ms } from './format.js';

export interface ProviderSection {
  name: string;
  /** Settings probed (never a key). */
  summary?: string;
  skipped?: string;
  results: CheckResult[];
}

function status(result: CheckResult): string {
  if (result.skipped) return `skipped: ${result.skipped}`;
  if (result.couldNotCheck !== undefined) return `could not check: ${result.couldNotCheck}`;
  return 'checked';
}

function renderResult(result: CheckResult): string[] {
  const lines = [`### ${result.id}. ${result.title}`, '', `*Question.* ${result.question}`, ''];
  if (!result.finding) return [...lines, `**${status(result)}**`, ''];
  const { sent, observed, conclusion } = result.finding;
  return [...lines, `*Sent.* ${sent}`, '', '*Observed.*', '', ...observed, '', `*Conclusion.* ${conclusion}`, ''];
}

export function renderReport(opts: { startedAt: Date; elapsedMs: number; settings: CheckSettings; sections: ProviderSection[] }): string {
  const { settings } = opts;
  const lines = [
    '# Live check of the TTS providers',
    '',
    `Run with \`npm run live-check\` at ${opts.startedAt.toISOString()}, ${Math.round(opts.elapsedMs / 1000)} s in all. ` +
      `Answers awaited up to ${ms(settings.answerMs)}; negative observations ("none within") listened ${ms(settings.graceMs)}; ` +
      `expiry probed at ${settings.expiryDelaysMs.map(ms).join(', ')}; idle socket kept up to ${Math.round(settings.idleWaitMs / 1000)} s.`,
    '',
    'Every message was built by firstword\'s own codec (packages/agents-plugin-tts/src/providers/*/codec.ts), with one field changed where a probe needs it. ' +
      '"firstword reads" is what that codec makes of the answer, i.e. what the worker would do with it. Frames are quoted verbatim, audio replaced by its size.',
    '',
  ];
  for (const section of opts.sections) {
    lines.push(`## ${section.name}`, '');
    if (section.skipped) {
      lines.push(`Skipped: ${section.skipped}.`, '');
      continue;
    }
    lines.push(`Settings: ${section.summary}.`, '');
    for (const result of section.results) lines.push(`- ${result.id} ${result.title}: ${status(result)}`);
    lines.push('');
    for (const result of section.results) lines.push(...renderResult(result));
  }
  return `${lines.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd()}\n`;
}
