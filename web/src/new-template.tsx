import { useRef, useState } from 'preact/hooks';
import { api } from './api.js';
import { ProblemList, refusal, type Problem } from './problems.js';

export interface CreatedTemplate {
  id: string;
  slug: string;
  visibility: 'private' | 'team';
}

/** The text as a document; JSON is YAML, so one parser reads both. */
async function parseMdl(text: string): Promise<{ mdl: unknown } | { syntax: string }> {
  // loaded on demand: only people who create templates pay for the parser
  const { parse, YAMLParseError } = await import('yaml');
  try {
    return { mdl: parse(text) };
  } catch (e) {
    if (!(e instanceof YAMLParseError)) throw e;
    const [at] = e.linePos ?? [];
    // the message already ends in "at line L, column C:" and a snippet; keep only the reason
    const reason = e.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
    return { syntax: at ? `YAML syntax error at line ${at.line}, column ${at.col}: ${reason}` : `YAML syntax error: ${reason}` };
  }
}

/** A custom template from an MDL document, shared with its creator only or with the whole organization. */
export function NewTemplate({ onCreated }: { onCreated: (template: CreatedTemplate) => void }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [tags, setTags] = useState('');
  const [visibility, setVisibility] = useState<'private' | 'team'>('private');
  const [text, setText] = useState('');
  const [errors, setErrors] = useState<Problem[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);

  // this handler and the async ones below settle their own errors (shown on the page): buttons and forms call them with void
  const load = async (event: Event) => {
    const file = (event.target as HTMLInputElement).files?.[0];
    if (file) setText(await file.text());
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    setErrors([]);
    setError(null);
    setBusy(true);
    try {
      const parsed = await parseMdl(text);
      if ('syntax' in parsed) return setError(parsed.syntax);
      const tagList = tags
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean);
      // the API takes a template's tags from its MDL, so the field fills mdl.tags
      const mdl =
        tagList.length > 0 && parsed.mdl && typeof parsed.mdl === 'object' && !Array.isArray(parsed.mdl) ? { ...parsed.mdl, tags: tagList } : parsed.mdl;
      const created = await api<CreatedTemplate>('POST', '/v1/templates', { name, description, visibility, mdl });
      form.current?.reset();
      setName('');
      setDescription('');
      setTags('');
      setVisibility('private');
      setText('');
      onCreated(created.data);
    } catch (e) {
      const refused = refusal(e, 'template');
      setError(refused.summary);
      setErrors(refused.problems);
    } finally {
      setBusy(false);
    }
  };

  return (
    <details class="new-template">
      <summary>New template</summary>
      <form ref={form} onSubmit={(e) => void submit(e)} aria-label="New template">
        <label for="template-name">Name</label>
        <input id="template-name" value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} maxLength={200} required />
        <label for="template-description">Description</label>
        <textarea id="template-description" rows={2} value={description} onInput={(e) => setDescription((e.target as HTMLTextAreaElement).value)} />
        <label for="template-tags">Tags (comma-separated)</label>
        <input
          id="template-tags"
          value={tags}
          onInput={(e) => setTags((e.target as HTMLInputElement).value)}
          placeholder="e.g. desalination, membrane"
          aria-describedby="template-tags-hint"
        />
        <small id="template-tags-hint" class="muted">
          Replace the MDL's own <code>tags</code>; leave empty to keep them.
        </small>
        <label for="template-visibility">Visibility</label>
        <select
          id="template-visibility"
          value={visibility}
          onChange={(e) => setVisibility((e.target as HTMLSelectElement).value as 'private' | 'team')}
          aria-describedby="template-visibility-hint"
        >
          <option value="private">private</option>
          <option value="team">team</option>
        </select>
        <small id="template-visibility-hint" class="muted">
          private: only you (and your organization's admins) can see and use it. team: everyone in your organization can.
        </small>
        <label for="template-mdl">MDL (YAML or JSON)</label>
        <textarea
          id="template-mdl"
          rows={12}
          value={text}
          onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
          spellcheck={false}
          required
          aria-describedby="template-mdl-hint"
        />
        <small id="template-mdl-hint" class="muted">
          Needs a <code>domain</code>: the template's slug is <code>&lt;domain&gt;/&lt;name in kebab-case&gt;</code>.
        </small>
        <label for="template-mdl-file">or load it from a file (.yaml, .yml, .json)</label>
        <input id="template-mdl-file" type="file" accept=".yaml,.yml,.json" onChange={(e) => void load(e)} />
        <button type="submit" disabled={busy}>
          Create template
        </button>
      </form>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {errors.length > 0 && (
        <div role="alert" class="error">
          <ProblemList problems={errors} testId="template-errors" />
        </div>
      )}
    </details>
  );
}
