import { describe, expect, it } from 'vitest';
import { settingsWithin, SettingsConflictError } from '../src/index.js';

describe("settingsWithin: a client's settings within the daemon operator's", () => {
  it('takes the client’s where the operator set nothing, and the operator’s where the client did', () => {
    expect(settingsWithin(undefined, { snapshotMaxChars: 3000 })).toEqual({ snapshotMaxChars: 3000 });
    expect(settingsWithin({ codegen: 'none' }, undefined)).toEqual({ codegen: 'none' });
    expect(settingsWithin({ codegen: 'none', consoleLevel: 'error' }, { codegen: 'python' })).toEqual({ codegen: 'python', consoleLevel: 'error' });
  });

  it('keeps the lower of two limits, both blocked lists, and the operator’s "no file: URLs"', () => {
    expect(
      settingsWithin(
        { snapshotMaxChars: 5000, maxTabs: 4, blockedOrigins: ['a.example'], allowUnrestrictedFileAccess: false },
        { snapshotMaxChars: 3000, maxTabs: 10, blockedOrigins: ['b.example', 'a.example'], allowUnrestrictedFileAccess: true },
      ),
    ).toEqual({ snapshotMaxChars: 3000, maxTabs: 4, blockedOrigins: ['a.example', 'b.example'], allowUnrestrictedFileAccess: false });
  });

  it('keeps the server files of both sides closed to file: URLs', () => {
    expect(settingsWithin({ protectedPaths: ['/srv/daemon/secret'] }, { protectedPaths: ['/home/u/keys', '/srv/daemon/secret'] })).toEqual({
      protectedPaths: ['/srv/daemon/secret', '/home/u/keys'],
    });
  });

  it('keeps the operator’s allowed list when the client has none, and refuses a different one', () => {
    expect(settingsWithin({ allowedOrigins: ['https://ok.example'] }, { allowedOrigins: [] })).toEqual({ allowedOrigins: ['https://ok.example'] });
    expect(() => settingsWithin({ allowedOrigins: ['https://ok.example'] }, { allowedOrigins: ['https://other.example'] })).toThrow(SettingsConflictError);
    expect(() => settingsWithin({ allowedOrigins: ['https://ok.example'] }, { allowedOrigins: ['https://other.example'] })).toThrow(
      /its own --allowed-origins \(https:\/\/ok\.example\)/,
    );
  });

  it('offers the operator’s caps only, naming what is missing', () => {
    expect(settingsWithin({ caps: ['testing', 'devtools'] }, { caps: ['testing'] })).toEqual({ caps: ['testing'] });
    expect(() => settingsWithin({ caps: ['testing'] }, { caps: ['testing', 'pdf'] })).toThrow(/does not offer the "pdf" tools \(its --caps: testing\)/);
  });

  it('merges secrets by name, the client’s last', () => {
    expect(settingsWithin({ secrets: { A: '1', B: '2' } }, { secrets: { B: '3' } })).toEqual({ secrets: { A: '1', B: '3' } });
  });
});
