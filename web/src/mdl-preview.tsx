import { useEffect, useState } from 'preact/hooks';

/**
 * An MDL document shown as YAML, the form people write it in, wrapped to the page's width. The
 * serializer is loaded on demand like the template form's parser; until it arrives the JSON shows.
 */
export function MdlPreview({ mdl, testId }: { mdl: unknown; testId: string }) {
  const [text, setText] = useState(() => JSON.stringify(mdl, null, 2));
  useEffect(() => {
    let current = true;
    import('yaml').then(
      ({ stringify }) => current && setText(stringify(mdl, { lineWidth: 0 })),
      () => undefined, // the serializer did not load: the JSON stays, which shows the same document
    );
    return () => {
      current = false;
    };
  }, [mdl]);
  return (
    <pre class="mdl-yaml" data-testid={testId}>
      {text}
    </pre>
  );
}
