import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuthConfig } from '../auth.config';
import { E164, maskPhone } from '../common/phone';
import { base32Decode, queryRows } from '@mm/platform';
import { pinRuleViolation } from '../crypto/pin-policy';
import { AccountsService } from '../users/accounts.service';
import { LocalUserStore } from '../users/local-user.store';
import { SecondFactorService } from '../second-factor/second-factor.service';

/** Arbitrary constant: the advisory lock serialising the bootstrap across instances starting together. */
const BOOTSTRAP_LOCK = 0x61757468;

/**
 * First start of a fresh platform: with BOOTSTRAP_ADMIN_PHONE and BOOTSTRAP_ADMIN_PIN set and no
 * administrator yet, create one, so someone can operate the platform. With
 * BOOTSTRAP_ADMIN_TOTP_SECRET set too, that administrator is enrolled with the secret in the same
 * step, and only then: a later start never enrols anyone, so a second factor reset after approval
 * (say, because the variable leaked) stays reset, whatever the variable still holds. Nothing else
 * happens afterwards.
 */
@Injectable()
export class BootstrapAdminService implements OnApplicationBootstrap {
  private readonly logger = new Logger(BootstrapAdminService.name);

  constructor(
    @Inject(AuthConfig) private readonly config: AuthConfig,
    private readonly db: DataSource,
    private readonly users: LocalUserStore,
    private readonly accounts: AccountsService,
    private readonly secondFactor: SecondFactorService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const phone = this.config.BOOTSTRAP_ADMIN_PHONE;
    const pin = this.config.BOOTSTRAP_ADMIN_PIN;
    if (!phone && !pin) return;
    if (!phone || !pin || !E164.test(phone))
      throw new Error('Invalid configuration: BOOTSTRAP_ADMIN_PHONE (E.164) and BOOTSTRAP_ADMIN_PIN go together');
    const violation = pinRuleViolation(pin, phone);
    if (violation) throw new Error(`Invalid configuration: BOOTSTRAP_ADMIN_PIN: ${violation}`);
    await this.db.transaction(async (m) => {
      await queryRows(m, `SELECT pg_advisory_xact_lock($1)`, [BOOTSTRAP_LOCK]);
      if (await this.users.adminExists(m)) return;
      if (await this.users.findByPhone(phone)) {
        this.logger.warn({ msg: 'bootstrap administrator not created: the phone already belongs to a user', phone: maskPhone(phone) });
        return;
      }
      const admin = await this.accounts.register(phone, pin, ['ADMIN']);
      this.logger.warn({ msg: 'bootstrap administrator created; change its PIN', userId: admin.id, phone: maskPhone(phone) });
      const secret = this.config.BOOTSTRAP_ADMIN_TOTP_SECRET ? base32Decode(this.config.BOOTSTRAP_ADMIN_TOTP_SECRET) : undefined;
      if (secret && (await this.secondFactor.enrolWith(admin.id, secret, m)))
        this.logger.warn({ msg: 'bootstrap administrator enrolled with BOOTSTRAP_ADMIN_TOTP_SECRET', userId: admin.id });
    });
  }
}
