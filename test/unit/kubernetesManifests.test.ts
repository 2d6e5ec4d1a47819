/**
 * The Kubernetes manifests (docs/deploy/kubernetes/, docs/operations.md "On Kubernetes"),
 * checked offline: each document against Kubernetes' own schemas (the npm package
 * kubernetes-models: types, required fields, formats), then against propgraph: every
 * variable they set is one the README documents, every secret they read is in the
 * Secret, the probes are the server's, the port and user are the image's
 * (docs/deploy/Containerfile), several replicas with a disruption budget below them,
 * resources set, and the Job runs the Deployment's image.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Deployment } from 'kubernetes-models/apps/v1';
import { Job } from 'kubernetes-models/batch/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Secret, Service } from 'kubernetes-models/v1';
import { parseAllDocuments } from 'yaml';
import { nonEmpty } from '../support/nonEmpty.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

type Doc = Record<string, any>;
const documents = (file: string): Doc[] => parseAllDocuments(read(file)).map((d) => d.toJS() as Doc);
const main = documents('docs/deploy/kubernetes/propgraph.yaml');
const job = documents('docs/deploy/kubernetes/upgrade-job.yaml');
const one = (kind: string): Doc => {
  const found = [...main, ...job].filter((d) => d.kind === kind);
  expect(found).toHaveLength(1);
  return found[0]!;
};

const MODELS: Record<string, new (data: any) => { validate(): void }> = {
  'v1/Secret': Secret,
  'v1/ConfigMap': ConfigMap,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'batch/v1/Job': Job,
};

function schemaErrors(doc: Doc): string | undefined {
  const Model = MODELS[`${doc.apiVersion}/${doc.kind}`];
  if (!Model) return `no schema here for ${doc.apiVersion} ${doc.kind}`;
  try {
    new Model(doc).validate();
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/** The variables of the README's configuration table. */
function documentedVariables(): Set<string> {
  const names = new Set<string>();
  for (const line of read('README.md').split('\n')) {
    const cell = /^\| (`[A-Z_]+`(?:, `[A-Z_]+`)*) \|/.exec(line);
    for (const m of cell?.[1]!.matchAll(/`([A-Z_]+)`/g) ?? []) names.add(m[1]!);
  }
  return names;
}

test("every document passes Kubernetes' schema", () => {
  expect([...main, ...job].map((d) => d.kind)).toEqual(['Secret', 'ConfigMap', 'Deployment', 'Service', 'PodDisruptionBudget', 'Job']);
  for (const doc of nonEmpty([...main, ...job])) expect({ kind: doc.kind, errors: schemaErrors(doc) }).toEqual({ kind: doc.kind, errors: undefined });
});

test('the schema check finds a wrong type and a missing field', () => {
  const deployment = structuredClone(one('Deployment'));
  deployment.spec.replicas = 'three';
  expect(schemaErrors(deployment)).toMatch(/replicas must be integer/);
  const service = structuredClone(one('Service'));
  delete service.spec.ports[0].port;
  expect(schemaErrors(service)).toMatch(/port/);
});

test('every variable set is documented in the README, and every secret read is in the Secret', () => {
  const documented = documentedVariables();
  expect(documented.size).toBeGreaterThan(30);
  const secret = one('Secret');
  const container = one('Deployment').spec.template.spec.containers[0];
  const set = [...Object.keys(one('ConfigMap').data), ...Object.keys(secret.stringData), ...container.env.map((e: Doc) => e.name)];
  expect(set.filter((name) => !documented.has(name))).toEqual([]);
  const refs = [container, one('Job').spec.template.spec.containers[0]].flatMap((c: Doc) => c.env.filter((e: Doc) => e.valueFrom?.secretKeyRef).map((e: Doc) => e.valueFrom.secretKeyRef));
  expect(refs.length).toBeGreaterThanOrEqual(5);
  for (const ref of nonEmpty(refs)) expect({ ref, inSecret: ref.name === secret.metadata.name && ref.key in secret.stringData }).toEqual({ ref, inSecret: true });
  expect(container.envFrom).toEqual([{ configMapRef: { name: one('ConfigMap').metadata.name } }]);
});

test("the probes, port and user are the server's and the image's", () => {
  const containerfile = read('docs/deploy/Containerfile');
  const port = Number(/^EXPOSE (\d+)$/m.exec(containerfile)![1]);
  const user = Number(/^USER (\d+):(\d+)$/m.exec(containerfile)![1]);
  const pod = one('Deployment').spec.template.spec;
  const container = pod.containers[0];
  expect(container.ports).toEqual([{ name: 'http', containerPort: port }]);
  expect(container.readinessProbe.httpGet).toEqual({ path: '/health/ready', port: 'http' });
  expect(container.livenessProbe.httpGet).toEqual({ path: '/health/live', port: 'http' });
  expect(container.startupProbe.httpGet).toEqual({ path: '/health/live', port: 'http' });
  expect(pod.securityContext.runAsUser).toBe(user);
  expect(one('Job').spec.template.spec.securityContext.runAsUser).toBe(user);
  // Longer than the server's own drain bound (30 s), so Kubernetes never kills a drain.
  expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(30);
  expect(one('Service').spec.ports[0].targetPort).toBe('http');
});

test('several replicas, a disruption budget below them, resources set, and the Job on the same image', () => {
  const deployment = one('Deployment');
  const budget = one('PodDisruptionBudget');
  expect(deployment.spec.replicas).toBeGreaterThanOrEqual(2);
  expect(budget.spec.minAvailable).toBeLessThan(deployment.spec.replicas);
  expect(budget.spec.selector).toEqual(deployment.spec.selector);
  expect(one('Service').spec.selector).toEqual(deployment.spec.selector.matchLabels);
  for (const container of [deployment.spec.template.spec.containers[0], one('Job').spec.template.spec.containers[0]]) {
    expect(container.resources.requests).toEqual({ cpu: expect.any(String), memory: expect.any(String) });
    expect(container.resources.limits.memory).toEqual(expect.any(String));
  }
  expect(one('Job').spec.template.spec.containers[0].image).toBe(deployment.spec.template.spec.containers[0].image);
  expect(one('Job').spec.template.spec.containers[0].args).toEqual(['system-update']);
});
