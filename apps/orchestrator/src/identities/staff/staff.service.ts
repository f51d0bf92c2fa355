import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { StaffRole } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { queryRows } from '@mm/platform';

type Db = DataSource | EntityManager;

export interface StaffMember {
  id: string;
  userId: string;
  phone: string;
  role: StaffRole;
  firstName: string;
  lastName: string;
  countryCode: string;
  createdBy: string | null;
  createdAt: string;
}

interface StaffRow {
  id: string;
  user_id: string;
  phone: string;
  role: StaffRole;
  first_name: string;
  last_name: string;
  country_code: string;
  created_by: string | null;
  created_at: Date;
}

const COLUMNS = 'id, user_id, phone, role, first_name, last_name, country_code, created_by, created_at';

function toStaff(row: StaffRow): StaffMember {
  return {
    id: row.id,
    userId: row.user_id,
    phone: row.phone,
    role: row.role,
    firstName: row.first_name,
    lastName: row.last_name,
    countryCode: row.country_code,
    createdBy: row.created_by,
    createdAt: row.created_at.toISOString(),
  };
}

/** Staff users (support operators, compliance officers, administrators): a profile, no wallet. */
@Injectable()
export class StaffService {
  constructor(private readonly db: DataSource) {}

  /** Registration step (idempotent on the id). */
  async create(
    input: Omit<StaffMember, 'createdAt' | 'createdBy'> & { createdBy?: string | null; registrationId: string },
    db: Db = this.db,
  ): Promise<void> {
    try {
      await queryRows(
        db,
        `INSERT INTO orchestrator.staff (id, user_id, phone, role, first_name, last_name, country_code, created_by, registration_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (id) DO NOTHING`,
        [
          input.id,
          input.userId,
          input.phone,
          input.role,
          input.firstName,
          input.lastName,
          input.countryCode,
          input.createdBy ?? null,
          input.registrationId,
        ],
      );
    } catch (error) {
      if ((error as { code?: string }).code === '23505') throw new AppException('USER_ALREADY_EXISTS');
      throw error;
    }
  }

  /** Compensation. */
  async remove(id: string, db: Db = this.db): Promise<void> {
    await queryRows(db, `DELETE FROM orchestrator.staff WHERE id = $1`, [id]);
  }

  async setRegistered(id: string, registered: boolean, db: Db = this.db): Promise<void> {
    await queryRows(db, `UPDATE orchestrator.staff SET registered_at = CASE WHEN $2 THEN now() END WHERE id = $1`, [id, registered]);
  }

  async findByUserId(userId: string): Promise<StaffMember | undefined> {
    const rows = await queryRows<StaffRow>(
      this.db,
      `SELECT ${COLUMNS} FROM orchestrator.staff WHERE user_id = $1 AND registered_at IS NOT NULL`,
      [userId],
    );
    return rows[0] && toStaff(rows[0]);
  }

  async setRole(id: string, role: StaffRole, db: Db = this.db): Promise<void> {
    await queryRows(db, `UPDATE orchestrator.staff SET role = $2, updated_at = now() WHERE id = $1`, [id, role]);
  }
}
