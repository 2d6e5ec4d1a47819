/**
 * The dataHubPolicyInfo aspect of a policy (docs/security.md, "Policies"): read strictly
 * (domain/policies/policy.ts), stored normalised in DataHub's shape, so that what the
 * policies grant is decided from policies that were valid when written. Its changes are
 * lifecycle events of the policy, beside its versions (history) and the audit line.
 */
import { parsePolicy, parsePolicyId, policyInfoOf } from '../../policies/policy.js';
import { NO_NEEDS, plainDecision, storedAsIs, type AspectRules } from '../../writes/aspectRules.js';
import type { AspectModule } from '../aspectModule.js';

export const policyInfoRules: AspectRules = {
  createsEntity: true,
  needs: () => NO_NEEDS,
  view: storedAsIs,
  decide: (next, state) => {
    parsePolicyId(state.urn.id, 'urn');
    const stored = policyInfoOf(parsePolicy(state.urn.value, next, 'dataHubPolicyInfo'));
    return { ...plainDecision(stored), events: [{ event: state.stored === undefined ? 'created' : 'changed' }] };
  },
};

export const dataHubPolicyInfo: AspectModule = {
  name: 'dataHubPolicyInfo',
  pdlClass: 'com.linkedin.policy.DataHubPolicyInfo',
  rules: policyInfoRules,
  text: { displayName: ['displayName'], description: ['description'] },
  audit: { write: () => 'policy.write' },
};
