/**
 * Saved views on the search page (DataHub's listMyViews, listGlobalViews, createView,
 * deleteView): the current search (keywords, filters, sort) saved by name, for oneself or,
 * with the privilege to manage global views, shared with everyone; each view listed as a
 * link to the search it keeps, so it opens as any search does and is shared by its link.
 * One's own views, and shared ones with that privilege, can be deleted.
 */
import { useState, type FormEvent } from 'react';
import { CreateViewDocument, DeleteViewDocument, SavedViewsDocument, type SavedViewFragment } from '../generated/graphql';
import { ApiError, messageOf, request } from '../lib/api';
import { Link } from '../lib/router';
import { isSearchOfView, searchOfView, viewDefinitionOf } from '../lib/savedViews';
import { searchUrl } from '../lib/searchState';
import type { Me } from '../lib/session';
import { useQuery } from '../lib/useQuery';
import { ErrorMessage, StatusMessage } from './Messages';

export function SavedViews({ me, params }: { me: Me; params: URLSearchParams }) {
  const views = useQuery(SavedViewsDocument, {});
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const mayShare = me.platformPrivileges.manageGlobalViews;
  const mine = views.data?.listMyViews?.views ?? [];
  const shared = views.data?.listGlobalViews?.views ?? [];

  const done = (text: string) => {
    setError(null);
    setMessage(text);
    views.reload();
  };

  return (
    <section className="saved-views" aria-labelledby="saved-views-title">
      <h2 id="saved-views-title">Saved views</h2>
      {views.error && <ErrorMessage title="The views could not be read.">{views.error}</ErrorMessage>}
      <ViewList title="Yours" views={mine} params={params} mayDelete={() => true} onDeleted={(name) => done(`Deleted the view “${name}”.`)} onError={setError} />
      <ViewList title="Shared with everyone" views={shared} params={params} mayDelete={() => mayShare} onDeleted={(name) => done(`Deleted the shared view “${name}”.`)} onError={setError} />
      <SaveView params={params} mayShare={mayShare} onSaved={(view) => done(`Saved this search as ${view.viewType === 'GLOBAL' ? 'a shared' : 'your'} view “${view.name}”.`)} onError={setError} />
      {message && <StatusMessage>{message}</StatusMessage>}
      {error && <ErrorMessage title="Not done.">{error}</ErrorMessage>}
    </section>
  );
}

interface ListProps {
  readonly title: string;
  readonly views: readonly SavedViewFragment[];
  readonly params: URLSearchParams;
  mayDelete(view: SavedViewFragment): boolean;
  onDeleted(name: string): void;
  onError(message: string): void;
}

function ViewList({ title, views, params, mayDelete, onDeleted, onError }: ListProps) {
  const [confirming, setConfirming] = useState<string | null>(null);
  const remove = async (view: SavedViewFragment) => {
    try {
      await request(DeleteViewDocument, { urn: view.urn });
      setConfirming(null);
      onDeleted(view.name);
    } catch (err) {
      onError(messageOf(err));
    }
  };
  return (
    <>
      <h3>{title}</h3>
      {views.length === 0 ? (
        <p className="hint">None yet.</p>
      ) : (
        <ul className="view-list">
          {views.map((v) => {
            const opened = searchOfView(v.definition);
            return (
              <li key={v.urn}>
                <Link href={searchUrl(opened.params)} aria-current={isSearchOfView(params, v.definition) ? 'page' : undefined} title={v.description ?? undefined}>
                  {v.name}
                </Link>
                {opened.left.length > 0 && <span className="hint"> (opens without: {opened.left.join('; ')})</span>}
                {mayDelete(v) && confirming !== v.urn && (
                  <button type="button" className="link-button" aria-label={`Delete the view ${v.name}`} onClick={() => setConfirming(v.urn)}>
                    Delete
                  </button>
                )}
                {confirming === v.urn && (
                  <span role="group" aria-label={`Delete the view ${v.name}?`}>
                    {' '}
                    Delete “{v.name}”?{' '}
                    <button type="button" className="danger" onClick={() => void remove(v)}>
                      Delete it
                    </button>{' '}
                    <button type="button" className="secondary" onClick={() => setConfirming(null)}>
                      Keep it
                    </button>
                  </span>
                )}
              </li>
            );
          })}
        </ul>
      )}
    </>
  );
}

function SaveView({ params, mayShare, onSaved, onError }: { params: URLSearchParams; mayShare: boolean; onSaved(view: SavedViewFragment): void; onError(message: string): void }) {
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [share, setShare] = useState(false);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    try {
      const view = (await request(CreateViewDocument, { input: { viewType: share ? 'GLOBAL' : 'PERSONAL', name, description: description.trim() || null, definition: viewDefinitionOf(params) } })).createView;
      if (view) onSaved(view);
      setName('');
      setDescription('');
      setShare(false);
      setOpen(false);
    } catch (err) {
      // The server's own words say which privilege sharing needs, or which field is wrong.
      onError(err instanceof ApiError && err.code === 'FORBIDDEN' ? `${err.message}. Save it as your own view instead, or ask an administrator to share it.` : messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  if (!open) {
    return (
      <button type="button" className="secondary" onClick={() => setOpen(true)}>
        Save this search as a view
      </button>
    );
  }
  return (
    <form className="save-view" onSubmit={(e) => void submit(e)} aria-label="Save this search as a view">
      <div className="field">
        <label htmlFor="view-name">Name of the view</label>
        <input id="view-name" value={name} onChange={(e) => setName(e.target.value)} required autoFocus />
      </div>
      <div className="field">
        <label htmlFor="view-description">Description (optional)</label>
        <input id="view-description" value={description} onChange={(e) => setDescription(e.target.value)} />
      </div>
      <div className="check-field">
        <input id="view-shared" type="checkbox" checked={share} disabled={!mayShare} onChange={(e) => setShare(e.target.checked)} aria-describedby="view-shared-hint" />{' '}
        <label htmlFor="view-shared">Share it with everyone</label>
        <p id="view-shared-hint" className="hint">
          {mayShare ? 'A shared view is listed for everyone who signs in; only you see your own.' : 'Sharing a view needs the privilege to manage global views (an administrator), which you do not have: it is saved as yours only.'}
        </p>
      </div>
      <p className="hint">It keeps the keywords, the filters and the sort of this search.</p>
      <button type="submit" disabled={busy}>
        Save the view
      </button>{' '}
      <button type="button" className="secondary" onClick={() => setOpen(false)}>
        Cancel
      </button>
    </form>
  );
}
