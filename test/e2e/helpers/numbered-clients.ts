/** Enough clients for the admin screen's list to have pages: `pickup-01` ("Abholung 1") and on. */
import type { DemoApp } from './demo-app.ts';
import { createClient } from '../../../src/oauth/clients/clients.service.ts';

export async function addNumberedClients(app: DemoApp, count: number): Promise<void> {
  for (let i = 1; i <= count; i += 1) {
    await createClient(app.t.db, app.t.keys, {
      clientId: `pickup-${String(i).padStart(2, '0')}`, name: `Abholung ${i}`, confidential: false,
      redirectUris: ['https://pickup.example/cb'], scopes: [], grantTypes: [], requiredRegions: [],
    });
  }
}
