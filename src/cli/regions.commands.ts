/** `region list | add` (SPEC §3). */
import { createRegion } from '../accounts/accounts.service.ts';
import { REGION_TYPES, type RegionType } from '../accounts/accounts.tables.ts';
import { listRegions } from '../accounts/regions.repository.ts';
import { optionalInteger, optionalString, UsageError, type CliCommand } from './command.ts';

export const regionListCommand: CliCommand = {
  words: ['region', 'list'],
  summary: 'list the regions with their parents and types',
  options: {},
  async run(context) {
    const regions = (await listRegions(await context.database())).map((r) => ({ id: r.id, name: r.name, type: r.type, parentId: r.parent_id }));
    return {
      json: regions,
      text: regions.length === 0 ? ['No regions.'] : regions.map((r) => `${String(r.id).padStart(5)}  ${r.name} (${r.type}${r.parentId === null ? '' : `, in ${r.parentId}`})`),
    };
  },
};

export const regionAddCommand: CliCommand = {
  words: ['region', 'add'],
  summary: 'create a region',
  options: {
    name: { type: 'string', required: true, value: 'N', help: 'the region\'s name' },
    parent: { type: 'string', value: 'ID', help: 'the region it lies in' },
    type: { type: 'string', value: 'TYPE', help: `one of ${REGION_TYPES.join(', ')} (default region)` },
  },
  async run(context, values) {
    const name = values.name as string;
    const parentId = optionalInteger(values, 'parent') ?? null;
    const type = optionalString(values, 'type') ?? 'region';
    if (!REGION_TYPES.includes(type as RegionType)) throw new UsageError(`--type must be one of ${REGION_TYPES.join(', ')}`);
    const id = await createRegion(await context.database(), { name, parentId, type: type as RegionType });
    return { json: { id, name, type, parentId }, text: [`Region ${id} created: ${name} (${type})`] };
  },
};
