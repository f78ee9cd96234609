import type { Generated } from 'kysely';

export interface ContentsTable {
  id: Generated<number>;
  name: string;
  title: string;
  body: string;
  last_modified: Date;
}

export interface ContentTables {
  contents: ContentsTable;
}
