CREATE OR REPLACE FUNCTION ledger.chain_heads_apply()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      DECLARE pending text := current_setting('ledger.chain_pending', true);
      BEGIN
        IF pending IS NULL OR pending = '' THEN RETURN NULL; END IF;
        UPDATE ledger.accounts a SET chain_seq = (p.value ->> 0)::bigint, chain_head = decode(p.value ->> 1, 'hex')
          FROM jsonb_each(pending::jsonb) p WHERE a.id = p.key::uuid;
        PERFORM set_config('ledger.chain_pending', '', true);
        RETURN NULL;
      END $function$;
