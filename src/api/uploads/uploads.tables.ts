import type { ColumnType } from 'kysely';

export interface UploadsTable {
  uuid: string;
  user_id: number | null;
  filename: string;
  mime_type: string;
  filesize: number;
  content: Buffer;
  created_at: ColumnType<Date, Date | undefined, never>;
}

export interface UploadsTables {
  uploads: UploadsTable;
}
