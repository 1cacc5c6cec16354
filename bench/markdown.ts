/** Helpers for the markdown the evaluation scripts write. */

/**
 * Text for a markdown table cell: every "|" is escaped, since a bare one ends
 * the cell (`|z|` would split a row into extra columns).
 */
export function tableCell(text: string): string {
  return text.replaceAll("|", "\\|");
}
