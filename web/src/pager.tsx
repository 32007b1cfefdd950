/** Previous / next between pages of a list, with where you are; nothing when everything fits on one. */
export function Pager({
  page,
  pages,
  label,
  position,
  onPage,
}: {
  page: number;
  pages: number;
  label: string;
  position?: string;
  onPage: (page: number) => void;
}) {
  if (pages <= 1) return null;
  return (
    <nav class="row" aria-label={label}>
      <button disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <span>{position ?? `page ${page} of ${pages}`}</span>
      <button disabled={page >= pages} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}
