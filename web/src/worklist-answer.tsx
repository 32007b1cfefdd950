import { useEffect, useRef } from 'preact/hooks';
import type { PostedResults } from './contract.js';

/**
 * What the results route said to the worklist's last post, shown beside the control that sent it
 * (the upload and download row, or the typed results' button), so the person reads it where they
 * are looking. It stays until they dismiss it or post again: a campaign completed by that post
 * keeps showing it, so the last batch's partial rows are not lost from view.
 */
export type WorklistAnswer = {
  /** the control it answers: the file row at the top of the worklist, or the typed results' button */
  at: 'file' | 'typed';
} & ({ posted: PostedResults; file?: string } | { refused: string[] });

function acceptedText(answer: PostedResults, file?: string): string {
  const counts = `${answer.accepted} result${answer.accepted === 1 ? '' : 's'} accepted${answer.duplicates ? `, ${answer.duplicates} already there` : ''}; ${answer.awaiting} still awaited.`;
  return file ? `${file}: ${counts}` : counts;
}

/**
 * The answer's place beside one control: a live region present before any answer (so a screen
 * reader announces what comes into it). A new answer is scrolled into view, and kept there while
 * the page settles around it (the next batch in, the header's counts, the campaign ended) until
 * the person scrolls, types or clicks: then the page is theirs.
 */
export function WorklistAnswerBox({
  answer,
  testId,
  layout,
  onDismiss,
}: {
  /** the answer to show here, or null when it is shown elsewhere or there is none */
  answer: WorklistAnswer | null;
  testId: string;
  /** changes when what is drawn around the answer changes */
  layout: string;
  onDismiss: () => void;
}) {
  const box = useRef<HTMLDivElement>(null);
  const follow = useRef(false);
  useEffect(() => {
    const stop = () => (follow.current = false);
    const events = ['wheel', 'touchstart', 'keydown', 'mousedown'] as const;
    for (const event of events) addEventListener(event, stop, { passive: true });
    return () => {
      for (const event of events) removeEventListener(event, stop);
    };
  }, []);
  useEffect(() => {
    follow.current = answer !== null;
  }, [answer]);
  useEffect(() => {
    if (answer && follow.current) box.current?.scrollIntoView({ block: 'nearest' });
  }, [answer, layout]);
  return (
    <div ref={box} class="worklist-answer" aria-live="polite" data-testid={testId}>
      {answer && (
        <>
          {'posted' in answer ? <Accepted posted={answer.posted} file={answer.file} /> : <Refused lines={answer.refused} />}
          <button class="secondary" onClick={onDismiss} aria-label="Dismiss the worklist's answer">
            Dismiss
          </button>
        </>
      )}
    </div>
  );
}

function Accepted({ posted, file }: { posted: PostedResults; file?: string }) {
  return (
    <div>
      <p data-testid="worklist-message">{acceptedText(posted, file)}</p>
      {posted.partial.length > 0 && (
        <div class="warning" data-testid="worklist-partial">
          <p>
            Stored as partial measurements, without the values left empty: they stay off the Pareto front and show as partial in the evaluations table. When you
            have the values, correct them under Corrections below.
          </p>
          <ul>
            {posted.partial.map((p) => (
              <li>
                {p.id}: no {p.missing.join(', no ')}
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}

function Refused({ lines }: { lines: string[] }) {
  return (
    <div role="alert" class="error" data-testid="worklist-error">
      <p>{lines[0]}</p>
      {lines.length > 1 && (
        <ul>
          {lines.slice(1).map((line) => (
            <li>{line}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
