export interface PetitionCacheTable {
  source_url: string;
  href: string | null;
  signatures: number | null;
  days_left: number | null;
  fetched_at: Date | null;
  last_attempt_at: Date;
}

export interface PetitionTables {
  petition_cache: PetitionCacheTable;
}
