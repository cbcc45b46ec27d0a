import { Fragment, type ComponentChildren } from 'preact';

export interface Column<T> {
  label: string;
  /** Numbers align right (tabular figures). */
  num?: boolean;
  /** The header is for screen readers only (a column of buttons). */
  hideLabel?: boolean;
  cell(row: T): ComponentChildren;
}

/**
 * A table of rows. On a narrow screen each row becomes a card (kit.css `.table.cards`): every cell on its own line
 * under its column's name, so nothing is off-screen (issue 31 finding 15). With `open`, a click anywhere on a row
 * that is not on a control opens it; the row keeps a real link for the keyboard and for "open in a new tab".
 */
export function Table<T>(props: {
  label: string;
  columns: Column<T>[];
  rows: readonly T[];
  rowKey(row: T): string;
  /** Attributes of a row (data-* for tests and scripts). */
  rowData?(row: T): Record<string, string>;
  open?(row: T): void;
  /**
   * What a row shows below itself when opened in place (a delivery's attempts): a full-width row, or a full card on a
   * narrow screen. Null for a closed row.
   */
  detail?(row: T): ComponentChildren;
}) {
  return (
    <div class="table-wrap" role="group" aria-label={props.label} tabIndex={0}>
      <table class="table cards">
        <thead>
          <tr>
            {props.columns.map((c) => (
              <th key={c.label} scope="col" class={c.num ? 'num' : undefined}>
                {c.hideLabel ? <span class="visually-hidden">{c.label}</span> : c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row) => {
            const detail = props.detail?.(row);
            return (
              <Fragment key={props.rowKey(row)}>
                <tr
                  class={props.open ? 'clickable' : undefined}
                  {...props.rowData?.(row)}
                  onClick={(e) => {
                    if (!props.open || (e.target as Element).closest('a, button, input, select, summary, label'))
                      return;
                    props.open(row);
                  }}
                >
                  {props.columns.map((c) => (
                    <td key={c.label} data-label={c.hideLabel ? '' : c.label} class={c.num ? 'num' : undefined}>
                      {c.cell(row)}
                    </td>
                  ))}
                </tr>
                {detail != null && detail !== false ? (
                  <tr class="detail-row">
                    <td colSpan={props.columns.length}>{detail}</td>
                  </tr>
                ) : null}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
