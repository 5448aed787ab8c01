// One search box for the whole application (CONTRACT §20): the records of every resource the
// description marks searchable (clients, invoices, quotes, credit notes), found by the partial
// filter of their title (a name, a number), five of each, in one GraphQL request. Ctrl-K (⌘K on
// a Mac) focuses it from any page; Escape closes the results; the arrow keys move through them.
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from '../../lib/html.js';
import { graphql } from '../api.js';
import { idOf, titleOf } from '../lib.js';
import { go } from './common.js';

/** The one GraphQL request of a search: `r<i>: <plural>(first: 5, <search>: "text")` per resource. */
export function searchQuery(resources, text) {
  return `{ ${resources.map((r, i) => `r${i}: ${r.plural}(first: 5, ${r.search}: ${JSON.stringify(text)}) { totalCount edges { node { id _id ${r.title} } } }`).join(' ')} }`;
}

export function SearchBox({ desc }) {
  const resources = desc.resources.filter((r) => r.searchable && r.search && r.gql);
  const [text, setText] = useState('');
  const [results, setResults] = useState(null);
  const [open, setOpen] = useState(false);
  const input = useRef(null);
  const box = useRef(null);
  useEffect(() => {
    const onKey = (e) => {
      if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        input.current?.focus();
        input.current?.select();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
  useEffect(() => {
    const q = text.trim();
    if (!q) {
      setResults(null);
      return;
    }
    let live = true;
    const timer = setTimeout(() => {
      graphql(searchQuery(resources, q)).then(
        (d) => live && setResults(resources.map((r, i) => ({ r, total: d[`r${i}`].totalCount, items: d[`r${i}`].edges.map((e) => e.node) })).filter((g) => g.items.length)),
        () => live && setResults([]),
      );
    }, 150);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [text]);
  if (!resources.length) return null;
  const links = () => [...(box.current?.querySelectorAll('.search-results a') ?? [])];
  const onKeyDown = (e) => {
    if (e.key === 'Escape') {
      setOpen(false);
      input.current?.focus();
    } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      const all = links();
      if (!all.length) return;
      e.preventDefault();
      const at = all.indexOf(document.activeElement);
      const next = e.key === 'ArrowDown' ? (at + 1) % all.length : at <= 0 ? all.length - 1 : at - 1;
      all[next].focus();
    }
  };
  const submit = (e) => {
    e.preventDefault();
    const first = links()[0];
    if (first) {
      setOpen(false);
      go(new URL(first.href).pathname);
    }
  };
  const mac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform ?? '');
  return html`<form ref=${box} class="app-search" role="search" aria-label="Everything" onSubmit=${submit} onKeyDown=${onKeyDown}
      onFocusOut=${(e) => !box.current?.contains(e.relatedTarget) && setOpen(false)}>
    <label for="app-search" class="visually-hidden">Search ${resources.map((r) => r.label.toLowerCase()).join(', ')}</label>
    <input ref=${input} id="app-search" type="search" autocomplete="off" placeholder=${`Search… (${mac ? '⌘' : 'Ctrl '}K)`} value=${text}
      onInput=${(e) => {
        setText(e.currentTarget.value);
        setOpen(true);
      }} onFocus=${() => setOpen(true)} />
    <div id="app-search-results" class="search-results" hidden=${!(open && results)} onClick=${(e) => e.target.closest('a') && setOpen(false)}>
      <p class="visually-hidden" role="status">${results ? `${results.reduce((n, g) => n + g.items.length, 0)} found` : ''}</p>
      ${results && results.length === 0 && html`<p class="muted">Nothing found.</p>`}
      ${(results ?? []).map(
        (g) => html`<section aria-label=${g.r.label}><h2>${g.r.label}</h2><ul>
          ${g.items.map((rec) => html`<li><a href=${`${g.r.path}/${idOf(rec.id) || rec._id}`}>${titleOf(g.r, rec)}</a></li>`)}
          ${g.total > g.items.length && html`<li><a href=${`${g.r.path}?${new URLSearchParams({ [g.r.search]: text.trim() })}`}>All ${g.total} matching ${g.r.label.toLowerCase()}</a></li>`}
        </ul></section>`,
      )}
    </div>
  </form>`;
}
