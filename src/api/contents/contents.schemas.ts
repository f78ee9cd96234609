/** The seed's content entry (create body, `{id}` answer) and the entry as PATCH and GET return it. */
import { Type, type Static } from '@sinclair/typebox';
import { NAME_PATTERN } from '../../text/control-characters.ts';
import { DateTimeString, IdParam, NO_NUL_PATTERN } from '../params.ts';

export const ContentParams = Type.Object({ contentId: IdParam('content entry id') });

// Names and titles are shown to people: no control characters, no bidirectional overrides (text/control-characters.ts).
const Name = Type.String({ minLength: 1, maxLength: 200, pattern: NAME_PATTERN, description: 'internal name; HTML tags are removed; no control characters or bidirectional overrides' });
const Title = Type.String({ minLength: 1, maxLength: 500, pattern: NAME_PATTERN, description: 'HTML tags are removed; no control characters or bidirectional overrides' });
/** The longest body, in characters. */
export const MAX_BODY_CHARACTERS = 500_000;
const Body = Type.String({ minLength: 1, maxLength: MAX_BODY_CHARACTERS, pattern: NO_NUL_PATTERN, description: 'HTML' });

export const CreateContentBody = Type.Object({ name: Name, title: Title, body: Body }, { additionalProperties: false });
export type CreateContentInput = Static<typeof CreateContentBody>;

export const UpdateContentBody = Type.Object({
  name: Type.Optional(Name),
  title: Type.Optional(Title),
  body: Type.Optional(Body),
}, { additionalProperties: false, minProperties: 1 });
export type UpdateContentInput = Static<typeof UpdateContentBody>;

export const ContentIdSchema = Type.Object({ id: Type.Integer() }, { title: 'ContentCreated' });

export const ContentEntrySchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  title: Type.String(),
  body: Type.String(),
  lastModified: DateTimeString('last change'),
}, { title: 'ContentEntry' });
export type ContentEntry = Static<typeof ContentEntrySchema>;
