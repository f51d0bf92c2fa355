import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { AppException } from '@mm/errors';
import { PinHasher } from '../crypto/pin-hasher.service';
import { queryRows } from '@mm/platform';
import { IdentityProvider, type IdpUser } from './identity-provider';

interface IdpRow {
  id: string;
  phone: string;
  pin_hash: string;
}

/** The identity provider kept in this service's own schema (`auth.idp_users`). */
@Injectable()
export class LocalIdentityProvider extends IdentityProvider {
  constructor(
    private readonly db: DataSource,
    private readonly hasher: PinHasher,
  ) {
    super();
  }

  async createUser(phone: string, pin: string, id?: string): Promise<{ user: IdpUser; created: boolean }> {
    const hash = await this.hasher.hash(pin);
    const rows = await queryRows<IdpRow>(
      this.db,
      `INSERT INTO auth.idp_users (id, phone, pin_hash) VALUES ($1, $2, $3)
       ON CONFLICT DO NOTHING RETURNING id, phone, pin_hash`,
      [id ?? randomUUID(), phone, hash],
    );
    if (rows.length > 0) return { user: { id: rows[0].id, phone }, created: true };
    // Already there: a replay of the same creation is the same result; anything else is a conflict
    // (another PIN, or another caller's id: the phone belongs to someone else's registration).
    const existing = await this.row('phone', phone);
    const replay = existing && (id === undefined || existing.id === id) && (await this.hasher.verify(pin, existing.pin_hash));
    if (existing && replay) return { user: { id: existing.id, phone }, created: false };
    throw new AppException('USER_ALREADY_EXISTS');
  }

  async findById(id: string): Promise<IdpUser | undefined> {
    const row = await this.row('id', id);
    return row && { id: row.id, phone: row.phone };
  }

  async verifyPin(id: string | undefined, pin: string): Promise<boolean> {
    const row = id ? await this.row('id', id) : undefined;
    if (!row) return this.hasher.verifyDummy(pin);
    const ok = await this.hasher.verify(pin, row.pin_hash);
    if (ok && this.hasher.needsRehash(row.pin_hash)) {
      // Parameters were raised since this hash was made: upgrade it now that we know the PIN.
      await queryRows(this.db, `UPDATE auth.idp_users SET pin_hash = $2 WHERE id = $1 AND pin_hash = $3`, [
        id,
        await this.hasher.hash(pin),
        row.pin_hash,
      ]);
    }
    return ok;
  }

  async setPin(id: string, pin: string, manager?: EntityManager): Promise<void> {
    // Hashed before the row is written: the row lock is not held through the hash.
    const hash = await this.hasher.hash(pin);
    const rows = await queryRows(
      manager ?? this.db,
      `UPDATE auth.idp_users SET pin_hash = $2, pin_changed_at = now() WHERE id = $1 RETURNING id`,
      [id, hash],
    );
    if (rows.length === 0) throw new AppException('USER_NOT_FOUND');
  }

  async deleteUser(id: string): Promise<boolean> {
    const rows = await queryRows(this.db, `DELETE FROM auth.idp_users WHERE id = $1 RETURNING id`, [id]);
    return rows.length > 0;
  }

  private async row(column: 'id' | 'phone', value: string): Promise<IdpRow | undefined> {
    const rows = await queryRows<IdpRow>(this.db, `SELECT id, phone, pin_hash FROM auth.idp_users WHERE ${column} = $1`, [value]);
    return rows[0];
  }
}
