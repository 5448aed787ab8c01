// The token list: Name, Description, Usage Count, Last Used, Created; sortable columns, row
// checkboxes for the batch actions, and "Edit" and "View History" per token. The value is never shown.
import { html } from '../lib/html.js';
import { dateTime, number } from '../lib/format.js';

export const COLUMNS = [
  { key: 'name', label: 'Name', defaultDir: 'asc' },
  { key: 'description', label: 'Description', defaultDir: 'asc' },
  { key: 'usageCount', label: 'Usage Count', defaultDir: 'desc', numeric: true },
  { key: 'lastUsedAt', label: 'Last Used', defaultDir: 'desc' },
  { key: 'createdAt', label: 'Created', defaultDir: 'desc' },
];

function SortHeader({ column, sort, onSort }) {
  const active = sort.key === column.key;
  const ariaSort = active ? (sort.dir === 'asc' ? 'ascending' : 'descending') : 'none';
  const next = active ? (sort.dir === 'asc' ? 'desc' : 'asc') : column.defaultDir;
  return html`<th scope="col" aria-sort=${ariaSort} class=${column.numeric ? 'num' : ''}>
    <button type="button" class=${`sort${active ? ' sort-active' : ''}`} onClick=${() => onSort({ key: column.key, dir: next })}>
      ${column.label}
      <svg class="sort-icon" viewBox="0 0 10 14" width="10" height="14" aria-hidden="true">
        <path d="M5 1L9 5H1z" class=${active && sort.dir === 'asc' ? 'on' : ''} />
        <path d="M5 13L1 9h8z" class=${active && sort.dir === 'desc' ? 'on' : ''} />
      </svg>
    </button>
  </th>`;
}

export function TokenTable({ tokens, sort, onSort, selected, onSelect, onHistory, onEdit, search, onCreate }) {
  const ids = tokens.map((t) => t.id);
  const chosen = ids.filter((id) => selected.has(id)).length;
  const all = ids.length > 0 && chosen === ids.length;

  function toggleAll() {
    const next = new Set(selected);
    for (const id of ids) all ? next.delete(id) : next.add(id);
    onSelect(next);
  }
  function toggle(id) {
    const next = new Set(selected);
    next.has(id) ? next.delete(id) : next.add(id);
    onSelect(next);
  }

  if (!tokens.length) {
    return html`<div class="empty" data-testid="tokens-empty">
      ${search
        ? html`<p><strong>No token matches “${search}”.</strong></p><p class="muted">Try another part of a name.</p>`
        : html`<p><strong>No API tokens yet.</strong></p>
            <p class="muted">Create a token to let a script or an integration call the API.</p>
            <p><button type="button" class="btn primary" onClick=${onCreate}>Create API Token</button></p>`}
    </div>`;
  }

  return html`<div class="table-wrap">
    <table class="table token-table">
      <caption class="visually-hidden">API tokens</caption>
      <thead>
        <tr>
          <th scope="col" class="check">
            <input type="checkbox" aria-label="Select all tokens" checked=${all} indeterminate=${chosen > 0 && !all} onChange=${toggleAll} />
          </th>
          ${COLUMNS.map((c) => html`<${SortHeader} column=${c} sort=${sort} onSort=${onSort} />`)}
          <th scope="col"><span class="visually-hidden">Actions</span></th>
        </tr>
      </thead>
      <tbody>
        ${tokens.map(
          (t) => html`<tr key=${t.id} class=${selected.has(t.id) ? 'selected' : ''} data-token=${t.name}>
            <td class="check">
              <input type="checkbox" aria-label=${`Select ${t.name}`} checked=${selected.has(t.id)} onChange=${() => toggle(t.id)} />
            </td>
            <td data-label="Name" class="name">${t.name}</td>
            <td data-label="Description" class="description">${t.description || html`<span class="muted" aria-label="No description">—</span>`}</td>
            <td data-label="Usage Count" class="num">${number(t.usageCount)}</td>
            <td data-label="Last Used">${t.lastUsedAt ? html`<time datetime=${t.lastUsedAt} title=${t.lastUsedAt}>${dateTime(t.lastUsedAt)}</time>` : ''}</td>
            <td data-label="Created"><time datetime=${t.createdAt} title=${t.createdAt}>${dateTime(t.createdAt)}</time></td>
            <td class="actions">
              <button type="button" class="btn small" onClick=${() => onEdit(t)} aria-label=${`Edit ${t.name}`}>Edit</button>
              <button type="button" class="btn small" onClick=${() => onHistory(t)} aria-label=${`View History of ${t.name}`}>View History</button>
            </td>
          </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}
