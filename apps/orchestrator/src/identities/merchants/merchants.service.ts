import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { MerchantDirectoryEntry } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { queryRows } from '@mm/platform';
import { CustomersService } from '../customers/customers.service';
import type { Customer } from '../customers/customer.types';
import type { MerchantCategory } from './merchant-categories';

type Db = DataSource | EntityManager;

export interface Merchant {
  id: string;
  customerId: string;
  businessName: string;
  category: MerchantCategory;
  createdAt: string;
  /** the person behind it: phone, status, wallet and accounts */
  customer: Customer;
}

interface MerchantRow {
  id: string;
  customer_id: string;
  business_name: string;
  category: MerchantCategory;
  created_at: Date;
}

/** Merchants: a customer with a business name and category; partners find them by phone. */
@Injectable()
export class MerchantsService {
  constructor(
    private readonly db: DataSource,
    private readonly customers: CustomersService,
  ) {}

  /** Registration step (idempotent on the id). */
  async create(
    input: { id: string; customerId: string; businessName: string; category: MerchantCategory },
    db: Db = this.db,
  ): Promise<void> {
    await queryRows(
      db,
      `INSERT INTO orchestrator.merchants (id, customer_id, business_name, category) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING`,
      [input.id, input.customerId, input.businessName, input.category],
    );
  }

  /** Compensation. */
  async remove(id: string, db: Db = this.db): Promise<void> {
    await queryRows(db, `DELETE FROM orchestrator.merchants WHERE id = $1`, [id]);
  }

  async findById(id: string): Promise<Merchant | undefined> {
    return this.findOne('id = $1', [id]);
  }

  async findByPhone(phone: string): Promise<Merchant | undefined> {
    return this.findOne('customer_id = (SELECT id FROM orchestrator.customers WHERE phone = $1)', [phone]);
  }

  async findByUserId(userId: string): Promise<Merchant | undefined> {
    return this.findOne('customer_id = (SELECT id FROM orchestrator.customers WHERE user_id = $1)', [userId]);
  }

  async getByUserId(userId: string): Promise<Merchant> {
    const merchant = await this.findByUserId(userId);
    if (!merchant) throw new AppException('MERCHANT_NOT_FOUND');
    return merchant;
  }

  /** What partners may know of a merchant (libs/contracts directory.ts). */
  toDirectoryEntry(merchant: Merchant): MerchantDirectoryEntry {
    return {
      merchantId: merchant.id,
      businessName: merchant.businessName,
      phone: merchant.customer.phone,
      status: merchant.customer.status,
      walletId: merchant.customer.walletId ?? '',
      accounts: merchant.customer.accounts,
    };
  }

  private async findOne(condition: string, params: unknown[]): Promise<Merchant | undefined> {
    const rows = await queryRows<MerchantRow>(
      this.db,
      `SELECT id, customer_id, business_name, category, created_at FROM orchestrator.merchants WHERE ${condition}`,
      params,
    );
    const row = rows[0];
    if (!row) return undefined;
    const customer = await this.customers.findById(row.customer_id);
    if (!customer) return undefined;
    return {
      id: row.id,
      customerId: row.customer_id,
      businessName: row.business_name,
      category: row.category,
      createdAt: row.created_at.toISOString(),
      customer,
    };
  }
}
