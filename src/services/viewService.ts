/**
 * Saved views (DataHub's listMyViews, listGlobalViews, createView, updateView, deleteView,
 * globalViewsSettings and a person's default view): the rules are in domain/savedView.ts,
 * the views are `dataHubViewInfo` aspects written through the one write path, so they
 * have history and reach backups like every aspect. Who may do what is in
 * AuthorizedViewService (below): anyone who may read makes and keeps personal views;
 * global views and the global default are an admin's.
 */
import type { UrnNamespace } from '../domain/typeUrns.js';
import { randomUUID } from 'node:crypto';
import { scopeAllows } from '../domain/accessToken.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../domain/errors.js';
import { PAGE_LIMITS, pageSize } from '../domain/limits.js';
import { findEntityType } from '../domain/registry/entityTypes.js';
import { newView, updatedView, viewInfoOf, viewOf, type SavedView, type ViewInput, type ViewType } from '../domain/savedView.js';
import { tryParseUrn } from '../domain/urn.js';
import { entityDeletePlan, entityPlan, setChange } from '../domain/writes/plan.js';
import type { SavedViewLister } from '../store/savedViews.js';
import type { Caller } from './caller.js';
import type { EntityService } from './entityService.js';
import type { WriteService } from './writes/writeService.js';
import type { Written } from './writeReceipt.js';

const VIEW_TYPE = findEntityType('dataHubView')!;
const VIEW_ASPECT = 'dataHubViewInfo';
const SETTINGS_URN = 'urn:li:globalSettings:0';
const SETTINGS_ASPECT = 'globalSettingsInfo';
const USER_SETTINGS_ASPECT = 'corpUserSettings';

export interface ViewPage {
  readonly start: number;
  readonly count: number;
  readonly total: number;
  readonly views: readonly SavedView[];
}

export interface ViewService {
  /** The caller's personal views (PERSONAL), or global ones too when `viewType` is absent. */
  listMine(caller: Caller, input: { readonly viewType?: ViewType | null; readonly start?: number | null; readonly count?: number | null; readonly query?: string | null }): Promise<ViewPage>;
  listGlobal(caller: Caller, input: { readonly start?: number | null; readonly count?: number | null; readonly query?: string | null }): Promise<ViewPage>;
  /** A view the caller may see; null when there is none. */
  get(caller: Caller, urn: string): Promise<SavedView | null>;
  create(caller: Caller, viewType: ViewType, input: ViewInput): Promise<Written<SavedView>>;
  update(caller: Caller, urn: string, input: ViewInput): Promise<Written<SavedView>>;
  delete(caller: Caller, urn: string): Promise<Written<true>>;
  /** The organisation's default view. */
  globalDefault(caller: Caller): Promise<string | null>;
  setGlobalDefault(caller: Caller, urn: string | null): Promise<Written<true>>;
  /** The caller's own default view. */
  myDefault(caller: Caller): Promise<string | null>;
  setMyDefault(caller: Caller, urn: string | null): Promise<Written<true>>;
}

export interface ViewDeps {
  readonly entities: EntityService;
  /** The write entry point with the app-state gate (appStateWrites.ts): this service authorizes its own calls (AuthorizedViewService). */
  readonly writes: WriteService;
  readonly listViews: SavedViewLister;
  /** The namespace views' entity type URNs are written in (URN_NAMESPACE). */
  readonly urnNamespace: UrnNamespace;
  readonly now?: () => number;
}

export class DefaultViewService implements ViewService {
  private readonly now: () => number;

  constructor(private readonly deps: ViewDeps) {
    this.now = deps.now ?? Date.now;
  }

  async listMine(caller: Caller, input: { viewType?: ViewType | null; start?: number | null; count?: number | null; query?: string | null }): Promise<ViewPage> {
    // DataHub's listMyViews: the caller's personal views, or (viewType GLOBAL) the global ones they made.
    return this.page(input.viewType ?? 'PERSONAL', caller.actor, input.start, input.count, input.query);
  }

  async listGlobal(_caller: Caller, input: { start?: number | null; count?: number | null; query?: string | null }): Promise<ViewPage> {
    return this.page('GLOBAL', undefined, input.start, input.count, input.query);
  }

  async get(caller: Caller, urn: string): Promise<SavedView | null> {
    const view = await this.read(urn);
    return view && visibleTo(caller, view) ? view : null;
  }

  async create(caller: Caller, viewType: ViewType, input: ViewInput): Promise<Written<SavedView>> {
    const view = newView(`urn:li:${VIEW_TYPE.name}:${randomUUID()}`, viewType, input, caller.actor, this.now());
    const written = await this.deps.writes.submit(caller, entityPlan(urnOf(view.urn), [setChange(VIEW_ASPECT, { value: viewInfoOf(view, this.deps.urnNamespace) })], { createsEntity: true }));
    return { result: view, receipt: written.receipt };
  }

  async update(caller: Caller, urn: string, input: ViewInput): Promise<Written<SavedView>> {
    const view = await this.editable(caller, urn);
    const next = updatedView(view, input, caller.actor, this.now());
    const written = await this.deps.writes.submit(caller, entityPlan(urnOf(urn), [setChange(VIEW_ASPECT, { value: viewInfoOf(next, this.deps.urnNamespace) })]));
    return { result: next, receipt: written.receipt };
  }

  async delete(caller: Caller, urn: string): Promise<Written<true>> {
    await this.editable(caller, urn);
    return { result: true, receipt: (await this.deps.writes.submit(caller, entityDeletePlan(urnOf(urn)))).receipt };
  }

  async globalDefault(): Promise<string | null> {
    const settings = await this.aspect(SETTINGS_URN, SETTINGS_ASPECT);
    return defaultViewOf(settings);
  }

  async setGlobalDefault(caller: Caller, urn: string | null): Promise<Written<true>> {
    if (urn !== null) await this.mustBe(caller, urn, 'GLOBAL');
    const written = await this.deps.writes.submit(caller, entityPlan(urnOf(SETTINGS_URN), [{ op: 'compute', aspect: SETTINGS_ASPECT, compute: (current) => withDefaultView(current, urn) }], { createsEntity: true }));
    return { result: true, receipt: written.receipt };
  }

  async myDefault(caller: Caller): Promise<string | null> {
    if (!tryParseUrn(caller.actor).ok) return null;
    return defaultViewOf(await this.aspect(caller.actor, USER_SETTINGS_ASPECT));
  }

  async setMyDefault(caller: Caller, urn: string | null): Promise<Written<true>> {
    if (urn !== null) await this.mustBe(caller, urn, undefined);
    if (!tryParseUrn(caller.actor).ok) throw new ValidationError(`${caller.actor} is not a person: only people have a default view`, 'defaultView');
    const written = await this.deps.writes.submit(caller, entityPlan(urnOf(caller.actor), [{ op: 'compute', aspect: USER_SETTINGS_ASPECT, compute: (current) => withDefaultView(current, urn) }], { createsEntity: true }));
    return { result: true, receipt: written.receipt };
  }

  private async page(viewType: ViewType, owner: string | undefined, start: number | null | undefined, count: number | null | undefined, query?: string | null): Promise<ViewPage> {
    const from = start ?? 0;
    if (!Number.isInteger(from) || from < 0) throw new ValidationError(`start must be a whole number >= 0, got ${from}`, 'start');
    const size = pageSize(count, PAGE_LIMITS.searchCount);
    const found = await this.deps.listViews({ entityType: VIEW_TYPE.name, aspect: VIEW_ASPECT, viewType, owner, query: query ?? undefined, start: from, count: size });
    const views = found.views.flatMap((v) => viewOf(v.urn, v.info) ?? []);
    return { start: from, count: views.length, total: found.total, views };
  }

  private async read(urn: string): Promise<SavedView | null> {
    const parsed = tryParseUrn(urn);
    if (!parsed.ok || parsed.urn.entityType !== VIEW_TYPE) return null;
    return viewOf(urn, await this.aspect(urn, VIEW_ASPECT));
  }

  private async aspect(urn: string, aspect: string): Promise<unknown> {
    const parsed = tryParseUrn(urn);
    if (!parsed.ok) return null;
    const views = await this.deps.entities.readEntities([parsed.urn], [aspect]);
    return views.get(urn)?.aspects.get(aspect)?.value ?? null;
  }

  /** The view, when the caller may change it: their own personal view, or a global one for an admin. */
  private async editable(caller: Caller, urn: string): Promise<SavedView> {
    const view = await this.read(urn);
    if (!view || !visibleTo(caller, view)) throw new NotFoundError(`View ${urn} does not exist`);
    if (view.viewType === 'PERSONAL' ? view.created.actor !== caller.actor : !scopeAllows(caller.scope, 'admin')) {
      throw new ForbiddenError(view.viewType === 'PERSONAL' ? `View ${urn} is another person's` : `Changing the global view ${urn} needs a token with admin scope`);
    }
    return view;
  }

  private async mustBe(caller: Caller, urn: string, viewType: ViewType | undefined): Promise<void> {
    const view = await this.get(caller, urn);
    if (!view) throw new ValidationError(`defaultView names ${urn}, which is not a view you can see`, 'defaultView');
    if (viewType && view.viewType !== viewType) throw new ValidationError(`defaultView must be a ${viewType.toLowerCase()} view; ${urn} is ${view.viewType.toLowerCase()}`, 'defaultView');
  }
}

function urnOf(value: string) {
  const parsed = tryParseUrn(value);
  if (!parsed.ok) throw new ValidationError(`${value} is not a valid urn: ${parsed.reason}`, 'urn');
  return parsed.urn;
}

/** A person sees their own personal views and every global one. */
function visibleTo(caller: Caller, view: SavedView): boolean {
  return view.viewType === 'GLOBAL' || view.created.actor === caller.actor;
}

function defaultViewOf(settings: unknown): string | null {
  const views = settings && typeof settings === 'object' ? (settings as { views?: { defaultView?: unknown } }).views : undefined;
  return typeof views?.defaultView === 'string' ? views.defaultView : null;
}

/** Settings (global or a person's) with `views.defaultView` set or cleared, the rest kept. */
function withDefaultView(current: unknown, urn: string | null): Record<string, unknown> {
  const base = current && typeof current === 'object' ? { ...(current as Record<string, unknown>) } : {};
  const views = base.views && typeof base.views === 'object' ? { ...(base.views as Record<string, unknown>) } : {};
  if (urn === null) delete views.defaultView;
  else views.defaultView = urn;
  return { ...base, views };
}

/**
 * Who may do what with views: reading and personal views need `read`; global views, their
 * edits and the global default need `admin` (DataHub's MANAGE_GLOBAL_VIEWS). Changing a
 * personal view is its owner's (checked by the service, which knows the owner).
 */
export class AuthorizedViewService implements ViewService {
  constructor(private readonly inner: ViewService) {}

  private need(caller: Caller, scope: 'read' | 'admin', what: string): ViewService {
    if (!scopeAllows(caller.scope, scope)) throw new ForbiddenError(`views.${what} needs a token with ${scope} scope; this token has ${caller.scope} scope`);
    return this.inner;
  }

  listMine: ViewService['listMine'] = async (caller, input) => this.need(caller, 'read', 'listMine').listMine(caller, input);
  listGlobal: ViewService['listGlobal'] = async (caller, input) => this.need(caller, 'read', 'listGlobal').listGlobal(caller, input);
  get: ViewService['get'] = async (caller, urn) => this.need(caller, 'read', 'get').get(caller, urn);
  create: ViewService['create'] = async (caller, viewType, input) => this.need(caller, viewType === 'GLOBAL' ? 'admin' : 'read', 'create').create(caller, viewType, input);
  update: ViewService['update'] = async (caller, urn, input) => this.need(caller, 'read', 'update').update(caller, urn, input);
  delete: ViewService['delete'] = async (caller, urn) => this.need(caller, 'read', 'delete').delete(caller, urn);
  globalDefault: ViewService['globalDefault'] = async (caller) => this.need(caller, 'read', 'globalDefault').globalDefault(caller);
  setGlobalDefault: ViewService['setGlobalDefault'] = async (caller, urn) => this.need(caller, 'admin', 'setGlobalDefault').setGlobalDefault(caller, urn);
  myDefault: ViewService['myDefault'] = async (caller) => this.need(caller, 'read', 'myDefault').myDefault(caller);
  setMyDefault: ViewService['setMyDefault'] = async (caller, urn) => this.need(caller, 'read', 'setMyDefault').setMyDefault(caller, urn);
}

/** Whether the caller may manage global views (DataHub's platformPrivileges.manageGlobalViews). */
export function managesGlobalViews(caller: Caller): boolean {
  return scopeAllows(caller.scope, 'admin');
}
