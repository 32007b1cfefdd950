import { useEffect, useState } from 'preact/hooks';

/**
 * An MDL document shown as YAML, the form people write it in, wrapped to the page's width, with
 * lists of plain values on one line as the templates write them (`bounds: [0.5, 2]`). The
 * serializer is loaded on demand like the template form's parser; until it arrives the JSON shows.
 */
export function MdlPreview({ mdl, testId }: { mdl: unknown; testId: string }) {
  const [text, setText] = useState(() => JSON.stringify(mdl, null, 2));
  useEffect(() => {
    let current = true;
    import('yaml').then(
      ({ Document, isScalar, visit }) => {
        const document = new Document(mdl);
        visit(document, {
          Seq: (_, list) => {
            if (list.items.every((item) => isScalar(item))) list.flow = true;
          },
        });
        if (current) setText(document.toString({ lineWidth: 0, flowCollectionPadding: false }));
      },
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
