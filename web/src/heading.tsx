/**
 * A column heading with its unit (`salt_concentration (mol/L)`), which may break after each
 * underscore of the name: a narrow column wraps a long MDL name at its words instead of growing
 * to fit it, and the heading reads the same (the break opportunities are not characters).
 */
export function Heading({ name, unit }: { name: string; unit?: string }) {
  const words = name.split('_');
  return (
    <>
      {words.map((word, i) =>
        i < words.length - 1 ? (
          <>
            {word}_<wbr />
          </>
        ) : (
          word
        ),
      )}
      {unit ? ` (${unit})` : ''}
    </>
  );
}
