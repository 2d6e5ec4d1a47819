/**
 * Write a metadata test, or edit one. The form checks the test with the API's own rules
 * before sending (lib/testForm.ts) and names the mistake, with its path in the
 * definition; what only the server judges (an id already taken) comes back as its message.
 */
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { ErrorMessage, Loading } from '../components/Messages';
import { CreateTestDocument, TestPageDocument, UpdateTestDocument } from '../generated/graphql';
import { messageOf, request } from '../lib/api';
import { Link, navigate, testPath } from '../lib/router';
import type { Me } from '../lib/session';
import { checkTestForm, EMPTY_TEST, testInput, type TestFieldError, type TestFormState } from '../lib/testForm';
import { useQuery } from '../lib/useQuery';

export function TestForm({ me, urn }: { me: Me; urn: string | null }) {
  const existing = useQuery(TestPageDocument, { urn: urn ?? '' }, { skip: urn === null });
  if (!me.platformPrivileges.manageTests) return <ErrorMessage title="Not allowed.">Your token's scope does not allow writing tests; an admin token does.</ErrorMessage>;
  if (urn === null) return <Editor urn={null} initial={EMPTY_TEST} />;
  if (existing.error) return <ErrorMessage>{existing.error}</ErrorMessage>;
  if (!existing.data) return <Loading what="the test" />;
  const t = existing.data.test;
  if (!t) return <ErrorMessage>There is no test {urn}.</ErrorMessage>;
  let definition = t.definition.json ?? '';
  try {
    definition = JSON.stringify(JSON.parse(definition), null, 2);
  } catch {
    // Edited as stored.
  }
  return <Editor urn={urn} initial={{ id: '', name: t.name, category: t.category, description: t.description ?? '', definition }} />;
}

function Editor({ urn, initial }: { urn: string | null; initial: TestFormState }) {
  const [form, setForm] = useState(initial);
  const [problem, setProblem] = useState<TestFieldError | null>(null);
  const [refusal, setRefusal] = useState<string | null>(null);
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
  async function submit(event: FormEvent) {
    event.preventDefault();
    setRefusal(null);
    const found = checkTestForm(form, creating);
    setProblem(found);
    if (found) return;
    setBusy(true);
    try {
      const target = creating
        ? (await request(CreateTestDocument, { input: { ...testInput(form), ...(form.id.trim() ? { id: form.id.trim() } : {}) } })).createTest
        : (await request(UpdateTestDocument, { urn, input: testInput(form) })).updateTest;
      navigate(testPath(target ?? urn ?? ''));
    } catch (err) {
      setRefusal(messageOf(err));
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
      {refusal && (
        <div ref={alertRef} tabIndex={-1}>
          <ErrorMessage title="The server refused the test.">{refusal}</ErrorMessage>
        </div>
      )}
      <form className="property-form test-form" onSubmit={(e) => void submit(e)} noValidate>
        {creating && field('id', 'Id (optional)', 'The test is urn:li:test:<id>; a random id when empty.', (a) => <input {...a} value={form.id} onChange={(e) => set('id')(e.target.value)} />)}
        {field('name', 'Name', null, (a) => <input {...a} value={form.name} onChange={(e) => set('name')(e.target.value)} />)}
        {field('category', 'Category', 'For example Governance, Documentation, Privacy.', (a) => <input {...a} value={form.category} onChange={(e) => set('category')(e.target.value)} />)}
        {field('description', 'Description (optional)', null, (a) => <textarea {...a} rows={2} value={form.description} onChange={(e) => set('description')(e.target.value)} />)}
        {field('definition', 'Definition (JSON)', '{"on": {"types": [...], "conditions"?: ...}, "rules": ...}: see docs/metadata-tests.md for the operators and property paths.', (a) => (
          <textarea {...a} className="definition-text" rows={14} spellCheck={false} value={form.definition} onChange={(e) => set('definition')(e.target.value)} />
        ))}
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
