import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, explain } from './api.js';
import type { CampaignCreated, TemplateListItem } from './contract.js';
import { useCampaignCreation } from './campaign-creation.js';
import { DOMAINS } from './campaigns.js';
import {
  blankConstraint,
  blankDraft,
  blankObjective,
  blankOutcome,
  blankParameter,
  draftOfMdl,
  fieldKeys,
  mdlOfDraft,
  placeProblems,
  type CampaignDraft,
} from './lab-campaign-draft.js';
import { fieldProblems, ProblemsOf, Section, valueOf } from './lab-campaign-fields.js';
import { ConstraintRows, ObjectiveRows, OutcomeRows, ParameterRows } from './lab-campaign-rows.js';
import { MdlPreview } from './mdl-preview.js';
import { CreatedWithWarnings, ProblemList } from './problems.js';

type Lists = 'parameters' | 'objectives' | 'outcomes' | 'outcomeConstraints';

/**
 * A campaign whose results people enter (an external evaluator: ask/tell through the API), built
 * field by field: parameters, objectives, outcomes and their constraints, budget and batch size.
 * The YAML it makes is shown as it is typed, and Create sends that document to the API; the API's
 * problems come back beside the fields they are about. `#/campaigns/new?template=<id>` starts from a
 * template's MDL.
 */
export function NewLabCampaign() {
  const [draft, setDraft] = useState<CampaignDraft>(blankDraft);
  const [templates, setTemplates] = useState<TemplateListItem[]>([]);
  const [templateId, setTemplateId] = useState(() => new URLSearchParams(location.hash.split('?')[1] ?? '').get('template') ?? '');
  const [notice, setNotice] = useState<string | null>(null);
  const creation = useCampaignCreation('lab-campaign-errors');
  const form = useRef<HTMLFormElement>(null);
  const mdl = useMemo(() => mdlOfDraft(draft), [draft]);
  const { at, unplaced } = placeProblems(creation.problems, fieldKeys(draft));
  const problems = fieldProblems(at);

  // this handler and the async ones below settle their own errors (shown on the page): buttons and forms call them with void
  const fill = async (id: string) => {
    creation.reset();
    try {
      const template = (await api<{ name: string; mdl: Record<string, unknown> }>('GET', `/v1/templates/${encodeURIComponent(id)}`)).data;
      setDraft(draftOfMdl(template.mdl));
      setNotice(`Filled in from the template “${template.name}”: change what your lab needs.`);
    } catch (e) {
      creation.fail(explain(e));
    }
  };
  useEffect(() => {
    api<TemplateListItem[]>('GET', '/v1/templates?per_page=100').then(
      (r) => setTemplates(r.data),
      () => undefined, // the list is a convenience: without it the form is still whole
    );
    if (templateId) void fill(templateId);
  }, []);
  // after a refusal, the first field with a problem takes the focus, so a keyboard lands on it
  useEffect(() => {
    form.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [creation.problems]);

  const set = (change: Partial<CampaignDraft>) => setDraft((d) => ({ ...d, ...change }));
  const change =
    <K extends Lists>(list: K) =>
    (index: number, row: CampaignDraft[K][number]) =>
      setDraft((d) => ({ ...d, [list]: d[list].map((r, i) => (i === index ? row : r)) }));
  // the keyboard's place after a row comes or goes: the new row's first field, or the section's add
  // button in place of the removed row's Remove, once drawn
  const focusNext = useRef<string | null>(null);
  useLayoutEffect(() => {
    if (focusNext.current) document.getElementById(focusNext.current)?.focus();
    focusNext.current = null;
  }, [draft]);
  // the problems are placed by row number: once rows move they would point at the wrong rows
  const remove = (list: Lists) => (index: number) => {
    creation.reset();
    focusNext.current = `add-${list}`;
    setDraft((d) => ({ ...d, [list]: d[list].filter((_, i) => i !== index) }));
  };
  const add = (list: Lists, blank: () => CampaignDraft[Lists][number], first: string) => () => {
    focusNext.current = first.replace('#', String(draft[list].length));
    setDraft((d) => ({ ...d, [list]: [...d[list], blank()] }));
  };
  const submit = async (event: Event) => {
    event.preventDefault();
    setNotice(null);
    await creation.create(() => api<CampaignCreated>('POST', '/v1/campaigns', { mdl }));
  };
  const placedCount = creation.problems.length - unplaced.length;
  const count = creation.problems.length === 1 ? 'one problem' : `${creation.problems.length} problems`;

  return (
    <main class="wide">
      <p>
        <a href="#/campaigns">← Campaigns</a>
      </p>
      <h1>New campaign with results you enter</h1>
      <p class="subtitle">
        For experiments your lab runs: Kiln proposes each batch of candidates, people measure them and enter the results (typed in on the campaign's page or
        uploaded as the filled worklist). The YAML beside the form is the campaign as it will be sent.
      </p>
      <div class="row">
        <label for="lab-template">Start from a template</label>
        <select id="lab-template" value={templateId} onChange={(e) => setTemplateId(valueOf(e))}>
          <option value="">an empty form</option>
          {templates.map((t) => (
            <option value={t.id}>{t.name}</option>
          ))}
        </select>
        <button
          type="button"
          class="secondary"
          onClick={() => {
            if (templateId) void fill(templateId);
            else {
              setDraft(blankDraft());
              creation.reset();
              setNotice('The form is empty again.');
            }
          }}
        >
          Fill in the form
        </button>
        {notice && <span role="status">{notice}</span>}
      </div>
      <div class="lab-campaign">
        <form ref={form} onSubmit={(e) => void submit(e)} aria-label="New campaign with results you enter" noValidate>
          <Section legend="Campaign" hint="The name and the domain (an application area such as battery or water) it is listed under.">
            <div class="draft-grid">
              <label for="lab-name">Name</label>
              <input id="lab-name" value={draft.name} maxLength={200} onInput={(e) => set({ name: valueOf(e) })} {...problems.attributes('name')} />
              <label for="lab-domain">Domain</label>
              <input id="lab-domain" list="lab-domains" value={draft.domain} onInput={(e) => set({ domain: valueOf(e) })} {...problems.attributes('domain')} />
              <datalist id="lab-domains">
                {DOMAINS.map((d) => (
                  <option value={d} />
                ))}
              </datalist>
              <label for="lab-description">Description (optional)</label>
              <textarea
                id="lab-description"
                rows={2}
                value={draft.description}
                onInput={(e) => set({ description: e.currentTarget.value })}
                {...problems.attributes('description')}
              />
            </div>
            <ProblemsOf
              problems={problems}
              fields={[
                ['name', 'Name'],
                ['domain', 'Domain'],
                ['description', 'Description'],
              ]}
            />
          </Section>
          <Section
            legend="Parameters"
            hint="What you set for each experiment. A step is the resolution you can set (0.05 mol/L); values, comma-separated, are the only settings allowed (sieve sizes); a categorical parameter lists its choices."
            onAdd={add('parameters', blankParameter, 'parameters[#].name')}
            addLabel="Add a parameter"
            addId="add-parameters"
          >
            <ParameterRows rows={draft.parameters} problems={problems} onChange={change('parameters')} onRemove={remove('parameters')} />
            <ProblemsOf problems={problems} fields={[['parameters', 'Parameters']]} />
          </Section>
          <Section
            legend="Objectives"
            hint="What you measure and want better. The reference is the worst value still worth having: the hypervolume is measured from it (left empty, it is taken from the first results)."
            onAdd={add('objectives', blankObjective, 'objectives[#].name')}
            addLabel="Add an objective"
            addId="add-objectives"
          >
            <ObjectiveRows rows={draft.objectives} problems={problems} onChange={change('objectives')} onRemove={remove('objectives')} />
            <ProblemsOf problems={problems} fields={[['objectives', 'Objectives']]} />
          </Section>
          <Section
            legend="Outcomes"
            hint="Quantities you measure that are not objectives but must stay within limits (a viscosity), entered with each result."
            onAdd={add('outcomes', blankOutcome, 'outcomes[#].name')}
            addLabel="Add an outcome"
            addId="add-outcomes"
          >
            <OutcomeRows rows={draft.outcomes} problems={problems} onChange={change('outcomes')} onRemove={remove('outcomes')} />
            <ProblemsOf problems={problems} fields={[['outcomes', 'Outcomes']]} />
          </Section>
          <Section
            legend="Outcome constraints"
            hint={
              <>
                A condition every good result must meet, on an outcome or an objective: <code>viscosity &lt;= 10</code>. Only results that meet every one count
                towards the front.
              </>
            }
            onAdd={add('outcomeConstraints', blankConstraint, 'outcome_constraints[#].expression')}
            addLabel="Add an outcome constraint"
            addId="add-outcomeConstraints"
          >
            <ConstraintRows
              rows={draft.outcomeConstraints}
              problems={problems}
              onChange={change('outcomeConstraints')}
              onRemove={remove('outcomeConstraints')}
            />
            <ProblemsOf problems={problems} fields={[['outcome_constraints', 'Outcome constraints']]} />
          </Section>
          <Section
            legend="Budget and batches"
            hint="The budget is the number of experiments in all. The first batch is an initial design of 2 × (parameters + 1) candidates (at most half the budget); each later batch has the batch size (default 1)."
          >
            <div class="draft-grid">
              <label for="lab-budget">Budget (experiments)</label>
              <input
                id="lab-budget"
                class="number"
                inputMode="numeric"
                value={draft.budget}
                onInput={(e) => set({ budget: valueOf(e) })}
                {...problems.attributes('optimizer.budget')}
              />
              <label for="lab-batch">Batch size</label>
              <input
                id="lab-batch"
                class="number"
                inputMode="numeric"
                value={draft.batchSize}
                placeholder="1"
                onInput={(e) => set({ batchSize: valueOf(e) })}
                {...problems.attributes('optimizer.batch_size')}
              />
            </div>
            <ProblemsOf
              problems={problems}
              fields={[
                ['optimizer.budget', 'Budget'],
                ['optimizer.batch_size', 'Batch size'],
              ]}
            />
          </Section>
          <p class="row">
            <button type="submit">Create campaign</button>
          </p>
          {creation.problems.length > 0 ? (
            <div role="alert" class="error" data-testid="lab-campaign-refusal">
              <p>
                The campaign was not created: {count} to fix,{' '}
                {placedCount === 0 ? 'listed below' : `shown at ${placedCount === 1 ? 'its field' : 'their fields'}`}
                {placedCount > 0 && unplaced.length > 0 ? ' and below' : ''}.
              </p>
              <ProblemList problems={unplaced} testId="lab-campaign-errors" />
            </div>
          ) : (
            creation.error && (
              <p role="alert" class="error">
                {creation.error}
              </p>
            )
          )}
          {creation.created && <CreatedWithWarnings campaign={creation.created} />}
        </form>
        <aside class="lab-yaml" aria-labelledby="lab-yaml-heading">
          <h2 id="lab-yaml-heading">The campaign as YAML</h2>
          <MdlPreview mdl={mdl} testId="lab-campaign-yaml" />
        </aside>
      </div>
    </main>
  );
}
