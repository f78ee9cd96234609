export interface RegionPinsTable {
  region_id: number;
  lat: number;
  lon: number;
  description: string;
  /** 0 inactive, 1 active. */
  status: number;
  updated_at: Date;
}

export interface RegionPinTables {
  region_pins: RegionPinsTable;
}
