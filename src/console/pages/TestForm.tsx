/**
 * Write a metadata test, or edit one: its rules in a form (components/RuleBuilder.tsx) or
 * as the definition's JSON, which stays a click away. The form checks the test with the
 * API's own rules before sending (lib/testForm.ts) and names the mistake, with its path in
 * the definition; what only the server judges (an id already taken) comes back as its message.
 */
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { ErrorMessage, Loading, StatusMessage } from '../components/Messages';
import { StaleFields } from '../components/StaleFields';
import { RuleBuilder } from '../components/RuleBuilder';
import { ApplicablePropertiesDocument, CreateTestDocument, TestPageDocument, UpdateTestDocument, type PropertySummaryFragment } from '../generated/graphql';
import { messageOf, request } from '../lib/api';
import { Link, navigate, testPath } from '../lib/router';
import type { Me } from '../lib/session';
import { definitionOf, EMPTY_RULES, newRule, rulesOf, type RuleForm } from '../lib/ruleBuilder';
import { staleFields, staleOf, type StaleWrite } from '../lib/staleWrite';
import { checkTestForm, EMPTY_TEST, infoOf, TEST_FIELDS, testFieldText, testFormOf, testInput, withTestFieldsOf, type TestFieldError, type TestFormState } from '../lib/testForm';
import { useQuery } from '../lib/useQuery';

export function TestForm({ me, urn }: { me: Me; urn: string | null }) {
  const existing = useQuery(TestPageDocument, { urn: urn ?? '' }, { skip: urn === null });
  if (!me.platformPrivileges.manageTests) return <ErrorMessage title="Not allowed.">Your token's scope does not allow writing tests; an admin token does.</ErrorMessage>;
  if (urn === null) return <Editor urn={null} initial={EMPTY_TEST} />;
  if (existing.error) return <ErrorMessage>{existing.error}</ErrorMessage>;
  if (!existing.data) return <Loading what="the test" />;
  const t = existing.data.test;
  if (!t) return <ErrorMessage>There is no test {urn}.</ErrorMessage>;
  // A new reading of the test (after "Take theirs") starts the form again from it.
  return <Editor key={t.aspectVersion ?? ''} urn={urn} initial={testFormOf(t)} read={t.aspectVersion ?? null} onReload={existing.reload} />;
}

type Mode = 'form' | 'json';

interface EditorProps {
  readonly urn: string | null;
  readonly initial: TestFormState;
  /** The test's aspectVersion as read: every save names it. */
  readonly read?: string | null;
  onReload?(): void;
}

function Editor(props: EditorProps) {
  const known = useQuery(ApplicablePropertiesDocument, { input: { types: ['STRUCTURED_PROPERTY'], query: '*', count: 1000 } });
  if (known.error) return <ErrorMessage>{known.error}</ErrorMessage>;
  if (!known.data) return <Loading what="the properties" />;
  const properties = (known.data.scrollAcrossEntities?.searchResults ?? []).map((r) => r.entity).filter((e): e is PropertySummaryFragment => 'definition' in e);
  return <TestEditor {...props} properties={properties} />;
}

function TestEditor({ urn, initial, read, onReload, properties }: EditorProps & { properties: readonly PropertySummaryFragment[] }) {
  const [form, setForm] = useState(initial);
  // A new test starts in the form with one empty rule; a test the form cannot show opens as JSON.
  const [rules, setRules] = useState<RuleForm | null>(() => (urn === null ? { ...EMPTY_RULES, rules: [newRule()] } : rulesOf(initial.definition, properties)));
  const [mode, setMode] = useState<Mode>(rules ? 'form' : 'json');
  const [modeNote, setModeNote] = useState<string | null>(null);
  const [problem, setProblem] = useState<TestFieldError | null>(null);
  const [refusal, setRefusal] = useState<string | null>(null);
  const [stale, setStale] = useState<StaleWrite | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  // The version a save names: as read, or as stored when merged after a stale save.
  const [version, setVersion] = useState<string | null>(read ?? null);
  const [busy, setBusy] = useState(false);
  const alertRef = useRef<HTMLDivElement>(null);
  const creating = urn === null;

  useEffect(() => {
    if (problem) document.getElementById(`tf-${problem.control}`)?.focus();
  }, [problem]);
  useEffect(() => {
    if (refusal) alertRef.current?.focus();
  }, [refusal]);

  const set = (key: keyof TestFormState) => (value: string) => setForm((f) => ({ ...f, [key]: value }));
  const jsonOf = (r: RuleForm) => JSON.stringify(definitionOf(r, properties), null, 2);
  const switchTo = (next: Mode) => {
    setModeNote(null);
    if (next === 'json' && rules) setForm((f) => ({ ...f, definition: jsonOf(rules) }));
    if (next === 'form') {
      const read = rulesOf(form.definition, properties);
      if (!read) {
        setModeNote('The form cannot show this definition (it has conditions, nested rules or operators the form does not offer): keep editing it as JSON.');
        return;
      }
      setRules(read);
    }
    setMode(next);
  };
  /** The form as it would be sent: the rules the form holds written out as the definition. */
  const sendable = (): TestFormState => (mode === 'form' && rules ? { ...form, definition: jsonOf(rules) } : form);

  async function save(expectedVersion: string | null) {
    setRefusal(null);
    setNotice(null);
    const sent = sendable();
    const found = checkTestForm(sent, creating);
    setProblem(found);
    if (found) return;
    setBusy(true);
    try {
      const target = creating
        ? (await request(CreateTestDocument, { input: { ...testInput(sent), ...(sent.id.trim() ? { id: sent.id.trim() } : {}) } })).createTest
        : (await request(UpdateTestDocument, { urn, input: { ...testInput(sent), ...(expectedVersion ? { expectedVersion } : {}) } })).updateTest;
      navigate(testPath(target ?? urn ?? ''));
    } catch (err) {
      const refused = staleOf(err);
      setStale(refused);
      if (!refused) setRefusal(messageOf(err));
      setBusy(false);
    }
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    void save(version);
  }

  /** The stored test now, for a merge: the form keeps what this person chose of theirs. */
  async function merge(theirFields: readonly string[]) {
    if (!urn || !stale) return;
    setBusy(true);
    try {
      const now = (await request(TestPageDocument, { urn })).test;
      if (!now) throw new Error(`There is no test ${urn} any more.`);
      const merged = withTestFieldsOf(sendable(), testFormOf(now), theirFields);
      const mergedRules = rulesOf(merged.definition, properties);
      setForm(merged);
      setRules(mergedRules);
      setMode(mergedRules ? mode : 'json');
      setVersion(now.aspectVersion ?? stale.currentVersion);
      setStale(null);
      setNotice(`Merged: ${theirFields.length ? `their ${theirFields.join(', ')} and ` : ''}the rest of yours. Check the form, then save.`);
    } catch (err) {
      setRefusal(messageOf(err));
    } finally {
      setBusy(false);
    }
  }

  const field = (control: TestFieldError['control'], label: string, hint: string | null, input: (attrs: Record<string, unknown>) => JSX.Element) => {
    const wrong = problem?.control === control;
    const described = [hint ? `tf-${control}-hint` : null, wrong ? `tf-${control}-error` : null].filter(Boolean).join(' ');
    return (
      <div className="field">
        <label htmlFor={`tf-${control}`}>{label}</label>
        {hint && (
          <p className="hint" id={`tf-${control}-hint`}>
            {hint}
          </p>
        )}
        {input({ id: `tf-${control}`, ...(wrong ? { 'aria-invalid': true } : {}), ...(described ? { 'aria-describedby': described } : {}) })}
        {wrong && (
          <p className="field-error" id={`tf-${control}-error`}>
            {problem.message}
          </p>
        )}
      </div>
    );
  };

  return (
    <>
      <h1>{creating ? 'New metadata test' : `Edit ${initial.name}`}</h1>
      {notice && <StatusMessage>{notice}</StatusMessage>}
      {stale && (
        <StaleFields
          stale={stale}
          what="test"
          rows={staleFields(stale, TEST_FIELDS, infoOf(sendable()), testFieldText)}
          busy={busy}
          onKeepMine={() => {
            setVersion(stale.currentVersion);
            void save(stale.currentVersion);
          }}
          onTakeTheirs={() => onReload?.()}
          onMerge={(fields) => void merge(fields)}
        />
      )}
      {refusal && (
        <div ref={alertRef} tabIndex={-1}>
          <ErrorMessage title="The server refused the test.">{refusal}</ErrorMessage>
        </div>
      )}
      <form className="property-form test-form" onSubmit={submit} noValidate>
        {creating && field('id', 'Id (optional)', 'The test is urn:li:test:<id>; a random id when empty.', (a) => <input {...a} value={form.id} onChange={(e) => set('id')(e.target.value)} />)}
        {field('name', 'Name', null, (a) => <input {...a} value={form.name} onChange={(e) => set('name')(e.target.value)} />)}
        {field('category', 'Category', 'For example Governance, Documentation, Privacy.', (a) => <input {...a} value={form.category} onChange={(e) => set('category')(e.target.value)} />)}
        {field('description', 'Description (optional)', null, (a) => <textarea {...a} rows={2} value={form.description} onChange={(e) => set('description')(e.target.value)} />)}
        <fieldset className="rule-mode">
          <legend>Write the rules</legend>
          {(['form', 'json'] as const).map((m) => (
            <label key={m} className="inline">
              <input type="radio" name="rule-mode" checked={mode === m} onChange={() => switchTo(m)} /> {m === 'form' ? 'with the form' : 'as JSON'}
            </label>
          ))}
          {modeNote && (
            <p className="field-error" role="alert">
              {modeNote}
            </p>
          )}
        </fieldset>
        {mode === 'form' && rules ? (
          <div id="tf-definition" tabIndex={-1} aria-describedby={problem?.control === 'definition' ? 'tf-definition-error' : undefined}>
            {problem?.control === 'definition' && (
              <p className="field-error" id="tf-definition-error">
                {problem.message}
              </p>
            )}
            <RuleBuilder form={rules} properties={properties} onChange={setRules} />
            <details className="definition-preview">
              <summary>The definition the form writes (JSON)</summary>
              <pre tabIndex={0} aria-label="The definition the form writes">
                {jsonOf(rules)}
              </pre>
            </details>
          </div>
        ) : (
          field('definition', 'Definition (JSON)', '{"on": {"types": [...], "conditions"?: ...}, "rules": ...}: see docs/metadata-tests.md for the operators and property paths.', (a) => (
            <textarea {...a} className="definition-text" rows={14} spellCheck={false} value={form.definition} onChange={(e) => set('definition')(e.target.value)} />
          ))
        )}
        <div className="actions">
          <button type="submit" disabled={busy}>
            {creating ? 'Create test' : 'Save test'}
          </button>
          <Link className="button secondary" href={creating ? '/tests' : testPath(urn)}>
            Cancel
          </Link>
        </div>
      </form>
    </>
  );
}
