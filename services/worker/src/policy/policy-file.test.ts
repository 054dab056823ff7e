import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startingGrants } from '@deskgate/computer-use';
import { loadPolicyFile, policyProfileFrom } from './policy-file.ts';

test('without a file: the seed profile by default, the sandbox profile when asked', () => {
  const seed = loadPolicyFile(undefined, 'seed');
  assert.deepEqual(seed.default.maxTier, { browser: 'read', terminal: 'click', trading: 'read', other: 'full' });
  assert.equal(seed.default.grantOnStart, undefined);
  const sandbox = loadPolicyFile(undefined, 'sandbox');
  assert.deepEqual(sandbox.default.maxTier, { browser: 'full', terminal: 'full', trading: 'full', other: 'full' });
  assert.deepEqual(sandbox.default.grantOnStart?.apps, ['chromium', 'mousepad', 'pcmanfm', 'xterm']);
  assert.equal(sandbox.default.flags.systemKeyCombos, false);
  assert.equal(sandbox.default.grantTier, 'ceiling');
  assert.deepEqual(startingGrants(sandbox.default).apps.map((g) => `${g.app}:${g.tier}`), ['chromium:full', 'mousepad:full', 'pcmanfm:full', 'xterm:full']);
  assert.deepEqual(startingGrants(seed.default).apps, []);
});

test('a file may name its profile; its own default wins over the profile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'policy-'));
  const file = join(dir, 'p.json');
  writeFileSync(file, JSON.stringify({ profile: 'sandbox', tenants: { acme: { approval: 'deny' } } }));
  assert.equal(loadPolicyFile(file, 'seed').default.maxTier.browser, 'full');
  writeFileSync(file, JSON.stringify({ default: { approval: 'human' } }));
  assert.equal(loadPolicyFile(file, 'sandbox').default.approval, 'human');
  writeFileSync(file, JSON.stringify({ profile: 'open' }));
  assert.throws(() => loadPolicyFile(file, 'seed'), /profile/);
});

test('DESKGATE_POLICY_PROFILE is checked', () => {
  assert.equal(policyProfileFrom({}), 'seed');
  assert.equal(policyProfileFrom({ DESKGATE_POLICY_PROFILE: 'sandbox' }), 'sandbox');
  assert.throws(() => policyProfileFrom({ DESKGATE_POLICY_PROFILE: 'anything' }), /DESKGATE_POLICY_PROFILE/);
});
