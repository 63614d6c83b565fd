import type { Executor } from './db.ts';

// Installation-wide values (not tenant data), such as the pepper that keys stored secret hashes.

export async function getSetting(db: Executor, key: string): Promise<string | undefined> {
  const row = await db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst();
  return row?.value;
}

/** Stores `value` unless the key already has one; returns the value that won. */
export async function putSettingIfAbsent(db: Executor, key: string, value: string): Promise<string> {
  await db
    .insertInto('settings')
    .values({ key, value })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const stored = await getSetting(db, key);
  if (stored === undefined) throw new Error(`setting ${key} vanished`);
  return stored;
}

/** Stores `value` under `key`, replacing what was there. */
export async function putSetting(db: Executor, key: string, value: string): Promise<void> {
  await db
    .insertInto('settings')
    .values({ key, value })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
    .execute();
}
