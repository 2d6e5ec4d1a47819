/**
 * Edits one property's values on an entity with the input its type calls for: a
 * dropdown (or checkboxes) of allowed values, a number, a date picker, a URN; one
 * value or several, as the cardinality says.
 */
import { useState, type FormEvent } from 'react';
import { valueTypeOfStd } from '../../domain/registry/valueTypes.js';
import { coerceTypedValue } from '../../domain/typedValue.js';
import type { PropertySummaryFragment, PropertyValueInput } from '../generated/graphql';
import { allowedDescription, valueText } from '../lib/properties';
import { usePropertyLabel } from '../lib/propertyNames';
import { entityPath, Link, propertyPath } from '../lib/router';
import { RichText } from './RichText';

interface Props {
  readonly property: PropertySummaryFragment;
  readonly current: readonly string[];
  readonly busy: boolean;
  onSave(values: PropertyValueInput[]): void;
  onCancel(): void;
}

/**
 * The typed inputs for the values, or the first problem with them, checked by the
 * server's own value rules (src/domain/typedValue.ts) before anything is sent.
 */
export function valueInputs(property: PropertySummaryFragment, texts: readonly string[]): { values: PropertyValueInput[] } | { problem: string } {
  const type = valueTypeOfStd(property.definition.valueType.info.type);
  const values: PropertyValueInput[] = [];
  for (const raw of texts.map((t) => t.trim()).filter((t) => t !== '')) {
    if (!type) {
      values.push({ stringValue: raw });
      continue;
    }
    const checked = coerceTypedValue(type.stored === 'double' ? { double: raw } : { string: raw }, type.id);
    if (!checked.ok) return { problem: `${raw} ${checked.reason}` };
    values.push('double' in checked.value ? { numberValue: checked.value.double } : { stringValue: checked.value.string });
  }
  if (values.length === 0) return { problem: 'Enter a value, or use Remove to clear the property' };
  if (property.definition.cardinality !== 'MULTIPLE' && values.length > 1) return { problem: 'This property holds one value' };
  return { values };
}

export function ValueEditor({ property, current, busy, onSave, onCancel }: Props) {
  const nameOf = usePropertyLabel();
  const d = property.definition;
  const multiple = d.cardinality === 'MULTIPLE';
  const [texts, setTexts] = useState<string[]>(current.length ? [...current] : ['']);
  const [problem, setProblem] = useState<string | null>(null);
  const base = `edit-${property.urn.replace(/[^A-Za-z0-9]+/g, '-')}`;
  const label = nameOf(d);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const result = valueInputs(property, texts);
    if ('problem' in result) {
      setProblem(result.problem);
      return;
    }
    setProblem(null);
    onSave(result.values);
  };
  const problemProps = problem ? { 'aria-invalid': true as const, 'aria-describedby': `${base}-problem` } : {};

  let inputs;
  if (d.allowedValues?.length && multiple) {
    inputs = (
      <fieldset>
        <legend>Values of {label}</legend>
        {d.allowedValues.map((a, i) => {
          const v = valueText(a.value);
          return (
            <label key={v} className="inline" htmlFor={`${base}-${i}`}>
              <input id={`${base}-${i}`} type="checkbox" checked={texts.includes(v)} onChange={(e) => setTexts((t) => (e.target.checked ? [...t.filter((x) => x !== ''), v] : t.filter((x) => x !== v)))} /> {v}
              {a.description ? ` — ${a.description}` : ''}
            </label>
          );
        })}
      </fieldset>
    );
  } else if (d.allowedValues?.length) {
    inputs = (
      <>
        <label htmlFor={`${base}-0`}>Value of {label}</label>
        <select id={`${base}-0`} value={texts[0] ?? ''} onChange={(e) => setTexts([e.target.value])} {...problemProps}>
          <option value="">Choose a value…</option>
          {d.allowedValues.map((a) => (
            <option key={valueText(a.value)} value={valueText(a.value)}>
              {valueText(a.value)}
              {a.description ? ` — ${a.description}` : ''}
            </option>
          ))}
        </select>
      </>
    );
  } else {
    const editor = valueTypeOfStd(d.valueType.info.type)?.editor ?? 'text';
    const inputType = editor === 'number' || editor === 'date' ? editor : 'text';
    inputs = (
      <fieldset>
        <legend>{multiple ? `Values of ${label}` : `Value of ${label}`}</legend>
        {texts.map((t, i) => (
          <div key={i} className="value-input">
            <label htmlFor={`${base}-${i}`}>{multiple ? `Value ${i + 1}` : editor === 'urn' ? 'Entity URN' : 'Value'}</label>
            {editor === 'markdown' ? (
              <textarea id={`${base}-${i}`} rows={3} value={t} onChange={(e) => setTexts((all) => all.map((x, j) => (j === i ? e.target.value : x)))} {...problemProps} />
            ) : (
              <input
                id={`${base}-${i}`}
                type={inputType}
                step="any"
                placeholder={editor === 'urn' ? 'urn:li:…' : undefined}
                value={t}
                onChange={(e) => setTexts((all) => all.map((x, j) => (j === i ? e.target.value : x)))}
                {...problemProps}
              />
            )}
            {multiple && texts.length > 1 && (
              <button type="button" className="secondary" onClick={() => setTexts((all) => all.filter((_, j) => j !== i))}>
                Remove value {i + 1}
              </button>
            )}
          </div>
        ))}
        {multiple && (
          <button type="button" className="secondary" onClick={() => setTexts((all) => [...all, ''])}>
            Add a value
          </button>
        )}
      </fieldset>
    );
  }

  return (
    <form className="value-editor" onSubmit={submit} noValidate>
      {inputs}
      {problem && (
        <p className="field-error" id={`${base}-problem`} role="alert">
          {problem}
        </p>
      )}
      <button type="submit" disabled={busy}>
        Save {label}
      </button>{' '}
      <button type="button" className="secondary" onClick={onCancel}>
        Cancel
      </button>
    </form>
  );
}

/**
 * A value as people read it: rich text rendered from Markdown (safely, RichText), an
 * entity URN as a link to its page, and an allowed value with its description.
 */
export function ValueText({ property, value }: { property: Pick<PropertySummaryFragment, 'definition'>; value: string }) {
  const editor = valueTypeOfStd(property.definition.valueType.info.type)?.editor;
  if (editor === 'markdown') return <RichText text={value} />;
  if (editor === 'urn' && value.startsWith('urn:li:')) {
    return (
      <Link className="value" href={value.startsWith('urn:li:structuredProperty:') ? propertyPath(value) : entityPath(value)}>
        {value}
      </Link>
    );
  }
  const description = allowedDescription(property.definition as PropertySummaryFragment['definition'], value);
  return (
    <>
      <span className="value">{value}</span>
      {description && <span className="value-description"> — {description}</span>}
    </>
  );
}
