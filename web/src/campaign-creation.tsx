import { useState } from 'preact/hooks';
import { CreatedWithWarnings, ProblemList, refusal, type Problem } from './problems.js';

interface Created {
  id: string;
  name: string;
  warnings: readonly Problem[];
}

/**
 * What the forms that create a campaign (from MDL, from a template, from an export document)
 * share: a campaign created cleanly opens at once, one with pre-flight warnings stays on the form
 * with them, and a refusal is shown with its problems at their places in the document.
 * `outcome` is what the form shows under itself; `problemsTestId` names its problem list.
 */
export function useCampaignCreation(problemsTestId: string) {
  const [error, setError] = useState<string | null>(null);
  const [problems, setProblems] = useState<Problem[]>([]);
  const [created, setCreated] = useState<Created | null>(null);
  const reset = () => {
    setError(null);
    setProblems([]);
    setCreated(null);
  };
  // settles its own errors (shown on the page): forms call it with void
  const create = async (request: () => Promise<{ data: Created }>) => {
    reset();
    try {
      const { data } = await request();
      if (data.warnings.length > 0) setCreated(data);
      else location.hash = `#/campaigns/${data.id}`;
    } catch (e) {
      const refused = refusal(e, 'campaign');
      setError(refused.summary);
      setProblems(refused.problems);
    }
  };
  const outcome = (
    <>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <ProblemList problems={problems} testId={problemsTestId} />
      {created && <CreatedWithWarnings campaign={created} />}
    </>
  );
  // a form that shows the problems at its own fields reads them, and the refusal and the created campaign, from here
  return { create, reset, fail: setError, outcome, error, problems, created };
}
