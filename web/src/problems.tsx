import { ApiError, explain } from './api.js';
import type { MdlWarning } from './contract.js';

/**
 * One problem or warning about a request, with `path` inside the document it concerns: the shape
 * of the MDL's pre-flight warnings, which validation failures list too.
 */
export type Problem = MdlWarning;

/**
 * The API names the request member a problem sits in (`mdl_file.parameters[0].bounds`,
 * `overrides.optimizer.budget`); a person sees the place in their document instead.
 */
const documentMembers = /^(mdl_file|mdl|overrides)(\.|$)/;

/**
 * A refused create as a person reads it: a sentence of our own (never the API's "see
 * details.errors") and the problems at their places in the document; other failures explained.
 */
export function refusal(error: unknown, what: string): { summary: string; problems: Problem[] } {
  const listed = error instanceof ApiError && error.code === 'VALIDATION_FAILED' && Array.isArray(error.details?.errors);
  if (!listed) return { summary: explain(error), problems: [] };
  const problems = (error.details.errors as Problem[]).map((p) => ({ ...p, path: p.path.replace(documentMembers, '') }));
  const count = problems.length === 1 ? 'one problem' : `${problems.length} problems`;
  return { summary: `The ${what} was not created: ${count} to fix, listed below.`, problems };
}

export function ProblemList({ problems, testId }: { problems: readonly Problem[]; testId: string }) {
  if (problems.length === 0) return null;
  return (
    <ul data-testid={testId}>
      {problems.map((p) => (
        <li>
          {p.line !== undefined && `line ${p.line}: `}
          {p.path ? (
            <>
              <code>{p.path}</code>:{' '}
            </>
          ) : p.line === undefined ? (
            'the document: '
          ) : (
            ''
          )}
          {p.message}
        </li>
      ))}
    </ul>
  );
}

/**
 * A campaign created with pre-flight warnings: they are worth reading before its budget is spent,
 * so the form stays and links to the campaign instead of moving on by itself.
 */
export function CreatedWithWarnings({ campaign }: { campaign: { id: string; name: string; warnings: readonly Problem[] } }) {
  const count = campaign.warnings.length === 1 ? 'a warning' : `${campaign.warnings.length} warnings`;
  return (
    <section class="warnings" role="status" aria-label="Pre-flight warnings">
      <p>
        Created <strong>{campaign.name}</strong>, with {count} to read before you start it (the campaign is valid; these may waste its budget):
      </p>
      <ProblemList problems={campaign.warnings} testId="preflight-warnings" />
      <a href={`#/campaigns/${campaign.id}`}>Open the campaign</a>
    </section>
  );
}
