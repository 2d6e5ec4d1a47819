/**
 * The rules of a metadata test as a form (lib/ruleBuilder.ts): the asset types, whether
 * all or any rule must hold, and per rule a property picked by name, an operator and
 * values (the allowed values when the property has them).
 */
import type { PropertySummaryFragment } from '../generated/graphql';
import { ASSET_TYPES, entityTypeLabel, valueText } from '../lib/properties';
import { usePropertyLabel } from '../lib/propertyNames';
import { assetFieldsFor, FORM_OPERATORS, isNumberProperty, newRule, operatorsFor, propertyOfPath, propertyPath, type RuleForm, type RuleRow } from '../lib/ruleBuilder';
import { valueTypeOfStd } from '../../domain/registry/valueTypes.js';

interface Props {
  readonly form: RuleForm;
  readonly properties: readonly PropertySummaryFragment[];
  onChange(next: RuleForm): void;
}

export function RuleBuilder({ form, properties, onChange }: Props) {
  const nameOf = usePropertyLabel();
  const applicable = properties
    .filter((p) => !p.status?.removed && p.definition.entityTypes.some((t) => form.types.includes(ASSET_TYPES.find((a) => a.graphql === t.info.type)?.name ?? '')))
    .sort((a, b) => nameOf(a.definition).localeCompare(nameOf(b.definition)));
  const fields = assetFieldsFor(form.types);
  const setRule = (index: number, changes: Partial<RuleRow>) => onChange({ ...form, rules: form.rules.map((r, i) => (i === index ? { ...r, ...changes } : r)) });
  const toggleType = (name: string, on: boolean) => onChange({ ...form, types: on ? [...form.types, name] : form.types.filter((t) => t !== name) });

  return (
    <div className="rule-builder">
      <fieldset>
        <legend>Applies to</legend>
        <div className="checkbox-grid">
          {ASSET_TYPES.map((t) => (
            <label key={t.name} className="inline">
              <input type="checkbox" checked={form.types.includes(t.name)} onChange={(e) => toggleType(t.name, e.target.checked)} /> {entityTypeLabel(t.graphql)}
            </label>
          ))}
        </div>
      </fieldset>
      <fieldset>
        <legend>An asset passes when</legend>
        {(['all', 'any'] as const).map((m) => (
          <label key={m} className="inline">
            <input type="radio" name="rule-match" checked={form.match === m} onChange={() => onChange({ ...form, match: m })} /> {m === 'all' ? 'every rule holds' : 'any rule holds'}
          </label>
        ))}
      </fieldset>
      <ol className="rules">
        {form.rules.map((rule, i) => {
          const property = propertyOfPath(rule.property, properties);
          const operators = operatorsFor(property);
          const operator = FORM_OPERATORS.find((o) => o.id === rule.operator)!;
          const n = i + 1;
          return (
            <li key={rule.key} className="rule-row">
              <div className="field">
                <label htmlFor={`rule-${n}-property`}>Property of rule {n}</label>
                <select
                  id={`rule-${n}-property`}
                  value={rule.property}
                  onChange={(e) => {
                    const next = propertyOfPath(e.target.value, properties);
                    const keep = operatorsFor(next).some((o) => o.id === rule.operator);
                    setRule(i, { property: e.target.value, values: [], operator: keep ? rule.operator : 'eq' });
                  }}
                >
                  <option value="">Choose a property…</option>
                  <optgroup label="Structured properties">
                    {applicable.map((p) => (
                      <option key={p.urn} value={propertyPath(p.urn)}>
                        {nameOf(p.definition)}
                      </option>
                    ))}
                  </optgroup>
                  <optgroup label="The asset">
                    {fields.map((f) => (
                      <option key={f.path} value={f.path}>
                        {f.label}
                      </option>
                    ))}
                  </optgroup>
                </select>
              </div>
              <div className="field">
                <label htmlFor={`rule-${n}-operator`}>Operator of rule {n}</label>
                <select id={`rule-${n}-operator`} value={rule.operator} onChange={(e) => setRule(i, { operator: e.target.value as RuleRow['operator'], values: [] })}>
                  {operators.map((o) => (
                    <option key={o.id} value={o.id}>
                      {o.label}
                    </option>
                  ))}
                </select>
              </div>
              {operator.takes !== 'none' && <RuleValues n={n} rule={rule} property={property} many={operator.takes === 'many'} pattern={rule.operator === 'matches'} onChange={(values) => setRule(i, { values })} />}
              <button type="button" className="secondary" onClick={() => onChange({ ...form, rules: form.rules.filter((_, j) => j !== i) })}>
                Remove rule {n}
              </button>
            </li>
          );
        })}
      </ol>
      <button type="button" className="secondary" onClick={() => onChange({ ...form, rules: [...form.rules, newRule()] })}>
        Add a rule
      </button>
    </div>
  );
}

function RuleValues({ n, rule, property, many, pattern, onChange }: { n: number; rule: RuleRow; property: PropertySummaryFragment | undefined; many: boolean; pattern: boolean; onChange(values: string[]): void }) {
  const allowed = pattern ? [] : (property?.definition.allowedValues ?? []).map((a) => ({ value: valueText(a.value), description: a.description }));
  if (allowed.length > 0 && many) {
    return (
      <fieldset className="rule-values">
        <legend>Values of rule {n}</legend>
        {allowed.map((a) => (
          <label key={a.value} className="inline">
            <input type="checkbox" checked={rule.values.includes(a.value)} onChange={(e) => onChange(e.target.checked ? [...rule.values, a.value] : rule.values.filter((v) => v !== a.value))} /> {a.value}
          </label>
        ))}
      </fieldset>
    );
  }
  if (allowed.length > 0) {
    return (
      <div className="field">
        <label htmlFor={`rule-${n}-value`}>Value of rule {n}</label>
        <select id={`rule-${n}-value`} value={rule.values[0] ?? ''} onChange={(e) => onChange([e.target.value])}>
          <option value="">Choose a value…</option>
          {allowed.map((a) => (
            <option key={a.value} value={a.value}>
              {a.value}
              {a.description ? ` (${a.description})` : ''}
            </option>
          ))}
        </select>
      </div>
    );
  }
  const type = property ? valueTypeOfStd(property.definition.valueType.info.type) : undefined;
  const inputType = pattern || many ? 'text' : isNumberProperty(property) ? 'number' : type?.id === 'date' ? 'date' : 'text';
  return (
    <div className="field">
      <label htmlFor={`rule-${n}-value`}>{many ? `Values of rule ${n} (separated by commas)` : pattern ? `Pattern of rule ${n}` : `Value of rule ${n}`}</label>
      <input
        id={`rule-${n}-value`}
        type={inputType}
        step="any"
        value={many ? rule.values.join(',') : (rule.values[0] ?? '')}
        onChange={(e) => onChange(many ? e.target.value.split(',') : [e.target.value])}
      />
    </div>
  );
}
