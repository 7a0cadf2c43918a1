import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { heldProfile } from '../../src/local/held-profile.js';

describe('heldProfile (a launch whose pages are held to origin lists)', () => {
  it('makes a profile of its own with "Preload pages" off, and removes it', () => {
    const held = heldProfile(undefined);
    expect(JSON.parse(readFileSync(join(held.dir, 'Default', 'Preferences'), 'utf8'))).toEqual({ net: { network_prediction_options: 2 } });
    held.remove();
    expect(existsSync(held.dir)).toBe(false);
  });

  it("turns it off in the user's --user-data-dir, keeping their other settings and the directory", () => {
    const dir = mkdtempSync(join(tmpdir(), 'bmcp-user-profile-'));
    mkdirSync(join(dir, 'Default'));
    writeFileSync(join(dir, 'Default', 'Preferences'), JSON.stringify({ homepage: 'https://example.com', net: { other: true } }));
    const held = heldProfile(dir);
    held.remove();
    expect(JSON.parse(readFileSync(join(dir, 'Default', 'Preferences'), 'utf8'))).toEqual({
      homepage: 'https://example.com',
      net: { other: true, network_prediction_options: 2 },
    });
  });
});
